//! The transforms applied, as breadcrumbs above the flame graph and the call tree:
//! "Complete profile › Merge foo › Focus bar", each a button that goes back to it,
//! and a × that undoes the last.

use std::rc::Rc;

use yew::prelude::*;

use pgolens_protocol::{FrameNames, Transform};

use super::{label, Msg};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub transforms: Vec<Transform>,
    pub names: Option<Rc<FrameNames>>,
    pub on_msg: Callback<Msg>,
}

#[function_component]
pub fn Breadcrumbs(props: &Props) -> Html {
    let n = props.transforms.len();
    let crumb = |at: usize, text: String| {
        let current = at == n;
        let onclick = props.on_msg.reform(move |_: MouseEvent| Msg::PopTo(at));
        html! {
            <li>
                <button class={classes!("tf-crumb", current.then_some("current"))} aria-current={current.then_some("step")}
                    disabled={current} {onclick}>{text}</button>
            </li>
        }
    };
    let names = props.names.as_deref();
    let crumbs = props.transforms.iter().enumerate().map(|(i, t)| crumb(i + 1, label(t, names)));
    let undo = props.on_msg.reform(move |_: MouseEvent| Msg::PopTo(n.saturating_sub(1)));
    html! {
        <nav class="transforms" aria-label="Transforms">
            <ol>
                {crumb(0, String::from("Complete profile"))}
                {for crumbs}
            </ol>
            if n > 0 {
                <button class="tf-undo" title="Undo the last transform" aria-label="Undo the last transform" onclick={undo}>{"×"}</button>
            }
        </nav>
    }
}
