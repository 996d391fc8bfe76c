//! The tab list of a file's views, in the order the worker offers them: the
//! WAI-ARIA tabs pattern with automatic activation (APG "Tabs"): the selected tab
//! alone is in the Tab sequence; Left/Right (wrapping), Home and End move to
//! another tab and select it, and focus follows.

use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use yew::prelude::*;

use pgolens_protocol::View as Tab;

use crate::views;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub tabs: Vec<Tab>,
    pub current: Tab,
    pub on_tab: Callback<Tab>,
}

/// The tab a key moves to from tab `at` of `count`, if the key moves.
fn step(key: &str, at: usize, count: usize) -> Option<usize> {
    let last = count.checked_sub(1)?;
    match key {
        "ArrowRight" => Some(if at >= last { 0 } else { at + 1 }),
        "ArrowLeft" => Some(if at == 0 { last } else { at - 1 }),
        "Home" => Some(0),
        "End" => Some(last),
        _ => None,
    }
}

#[function_component]
pub fn Tabs(props: &Props) -> Html {
    let list = use_node_ref();
    let onkeydown = {
        let (tabs, current, on_tab, list) = (props.tabs.clone(), props.current, props.on_tab.clone(), list.clone());
        Callback::from(move |e: KeyboardEvent| {
            if e.alt_key() || e.ctrl_key() || e.meta_key() {
                return;
            }
            let at = tabs.iter().position(|&t| t == current).unwrap_or(0);
            let Some(next) = step(&e.key(), at, tabs.len()) else { return };
            e.prevent_default();
            // The buttons are all drawn already: focus moves now, the selection follows.
            if let Some(button) = list
                .cast::<web_sys::Element>()
                .and_then(|l| l.children().item(next as u32))
                .and_then(|b| b.dyn_into::<HtmlElement>().ok())
            {
                let _ = button.focus();
            }
            if let Some(&tab) = tabs.get(next) {
                on_tab.emit(tab);
            }
        })
    };
    html! {
        <div class="tabs" role="tablist" aria-label="Views" aria-orientation="horizontal" ref={list} {onkeydown}>
            { for props.tabs.iter().enumerate().map(|(i, &tab)| {
                let selected = tab == props.current;
                let onclick = props.on_tab.reform(move |_: MouseEvent| tab);
                let shortcut = (i < 9).then(|| (i + 1).to_string());
                html! {
                    <button role="tab" id={format!("tab-{}", views::id(tab))} aria-selected={selected.to_string()}
                        aria-controls={format!("panel-{}", views::id(tab))} tabindex={if selected { "0" } else { "-1" }}
                        aria-keyshortcuts={shortcut.clone()} title={shortcut.map(|k| format!("Key {k}"))}
                        class={classes!("tab", selected.then_some("current"))} {onclick}>
                        {views::title_among(tab, &props.tabs)}
                    </button>
                }
            }) }
        </div>
    }
}
