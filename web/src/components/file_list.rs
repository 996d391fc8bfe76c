//! The open files, as a switcher: one entry per file, the shown one marked current.

use std::rc::Rc;

use yew::prelude::*;

use pgolens_protocol::DocId;

use crate::app::{Action, Doc, Phase};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub docs: Vec<Rc<Doc>>,
    pub current: Option<DocId>,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn FileList(props: &Props) -> Html {
    if props.docs.is_empty() {
        return html! {};
    }
    html! {
        <nav class="files" aria-label="Open files">
            <ul>
                { for props.docs.iter().map(|doc| entry(doc, props.current == Some(doc.id), &props.dispatch)) }
            </ul>
        </nav>
    }
}

fn entry(doc: &Doc, current: bool, dispatch: &Callback<Action>) -> Html {
    let id = doc.id;
    let select = dispatch.reform(move |_: MouseEvent| Action::Select(id));
    let close = dispatch.reform(move |e: MouseEvent| {
        e.stop_propagation();
        Action::Close(id)
    });
    let (tag, class) = match (&doc.phase, &doc.summary) {
        (Phase::Ready, Some(s)) => (s.format.clone(), "ok"),
        (Phase::Failed(_), _) => (String::from("error"), "error"),
        _ => (String::from("…"), "busy"),
    };
    html! {
        <li key={id} class={classes!("file", current.then_some("current"))}>
            <button class="file-select" aria-current={current.then_some("true")} onclick={select} title={doc.name.clone()}>
                <span class="file-name">{&doc.name}</span>
                <span class="file-meta">
                    if doc.demo { <span class="badge demo">{"Demo"}</span> }
                    <span class={classes!("tag", class)}>{tag}</span>
                </span>
            </button>
            <button class="file-close" aria-label={format!("Close {}", doc.name)} title="Close" onclick={close}>{"×"}</button>
        </li>
    }
}
