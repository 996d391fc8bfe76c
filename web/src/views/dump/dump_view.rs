//! The Dump tab: the dump tree beside the hex pane, linked both ways.

use std::rc::Rc;

use yew::prelude::*;

use super::hex_pane::HexPane;
use super::tree_view::TreeView;
use super::Msg;
use crate::app::{Action, Doc};

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
                tree={doc.dump.tree.clone()}
                selected={doc.dump.selected}
                focus={doc.dump.tree_focus}
                on_toggle={d.reform(|n| Action::Dump(Msg::Toggle(n)))}
                on_select={d.reform(|n| Action::Dump(Msg::Select(n)))}
                on_key={d.reform(|k| Action::Dump(Msg::Key(k)))}
            />
            <HexPane
                key={format!("hex-{}", doc.id)}
                size={doc.dump.size}
                cache={doc.dump.hex.clone()}
                selection={doc.dump.selection()}
                focus={doc.dump.hex_focus}
                on_need={d.reform(|(start, end)| Action::Dump(Msg::NeedBytes { start, end }))}
                on_reveal={d.reform(|o| Action::Dump(Msg::Reveal(o)))}
            />
        </div>
    }
}
