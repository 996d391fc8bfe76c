//! The Dump tab: the dump tree beside the hex pane, linked both ways.

use std::rc::Rc;

use yew::prelude::*;

use super::hex_pane::HexPane;
use super::tree_view::TreeView;
use crate::state::{Action, Doc};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn DumpView(props: &Props) -> Html {
    let doc = &props.doc;
    let d = &props.dispatch;
    html! {
        <div class="dump">
            <TreeView
                key={format!("tree-{}", doc.id)}
                tree={doc.tree.clone()}
                selected={doc.selected}
                focus={doc.tree_focus}
                on_toggle={d.reform(Action::Toggle)}
                on_select={d.reform(Action::SelectNode)}
                on_key={d.reform(Action::Key)}
            />
            <HexPane
                key={format!("hex-{}", doc.id)}
                size={doc.content_size()}
                cache={doc.hex.clone()}
                selection={doc.selection()}
                focus={doc.hex_focus}
                on_need={d.reform(|(start, end)| Action::NeedBytes { start, end })}
                on_reveal={d.reform(Action::Reveal)}
            />
        </div>
    }
}
