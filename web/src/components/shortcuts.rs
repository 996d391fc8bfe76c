//! The `?` overlay: every key of the page, by where it works. A modal dialog (the
//! WAI-ARIA dialog pattern, APG "Dialog (Modal)"): it takes the focus, Tab and
//! Shift+Tab cycle inside it, Esc or its Close button closes it, and the app puts
//! the focus back where it was.

use wasm_bindgen::JsCast;
use web_sys::{HtmlDialogElement, HtmlElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub on_close: Callback<()>,
}

/// The keys, by the part of the page they work in: (keys, what they do).
const GROUPS: [(&str, &[(&str, &str)]); 5] = [
    (
        "Everywhere",
        &[
            ("1 … 9", "show the file's first … ninth view"),
            ("?", "show or hide this list"),
            ("Tab, Shift+Tab", "move between the tabs, the view and its controls"),
            ("← → Home End", "on the tabs: show the previous, next, first or last view"),
        ],
    ),
    (
        "Flame graph",
        &[
            ("← → ↑ ↓", "move the selection: along the row, to the caller, to the widest callee"),
            ("Enter, double-click", "zoom to the selected frame"),
            ("+ − 0", "zoom in, zoom out, reset the zoom"),
            (
                "W A S D",
                "scroll the rows up, pan left, scroll down (s: the sandwich once a frame is selected), pan right",
            ),
            ("/ or Ctrl+F", "search functions"),
            ("n p, or Enter Shift+Enter in the search", "next or previous match"),
            ("Esc", "leave the search; close the sandwich; reset the zoom"),
            ("s", "the selected function's sandwich (callers and callees)"),
            ("r", "collapse the selected function's recursion"),
            ("i", "flip to the icicle of the inverted tree"),
            ("f", "fold inlined frames into the functions holding their code, or unfold them"),
            ("← → Shift+← Shift+→ Esc on the timeline", "move the time range, change its end, clear it"),
        ],
    ),
    (
        "Call tree",
        &[
            ("↑ ↓", "previous or next row"),
            ("← →", "collapse or expand the row (or go to its parent, its first child)"),
            ("Home End", "first or last row"),
            ("*", "expand everything below the row"),
            ("Enter", "select the row's function in every view"),
            ("Context menu key, Shift+F10", "the row's transforms (merge, focus, drop…)"),
        ],
    ),
    (
        "CFG",
        &[
            ("↓ ↑, or j k", "along the hottest edge out of the block, or into it"),
            ("← →, or h l", "the previous or next successor of the block the selection came from"),
            ("Enter", "open the hottest callee of the selected block"),
            ("Backspace", "back to the function shown before"),
            ("f  + −", "fit the whole graph, zoom in, zoom out"),
            ("/", "find a block by #index, @offset or callee; Enter in the search: the next"),
            ("Esc", "clear the selection"),
        ],
    ),
    (
        "Tables",
        &[
            ("↑ ↓ PageUp PageDown Home End", "move between rows"),
            ("Enter", "open the row"),
            ("← → on a column's edge", "narrow or widen the column"),
        ],
    ),
];

/// The dialog's focusable elements, in order.
fn focusable(dialog: &web_sys::Element) -> Vec<HtmlElement> {
    let Ok(list) = dialog.query_selector_all("button, [tabindex='0']") else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i)?.dyn_into::<HtmlElement>().ok()).collect()
}

#[function_component]
pub fn Shortcuts(props: &Props) -> Html {
    let dialog = use_node_ref();
    {
        let dialog = dialog.clone();
        use_effect_with((), move |()| {
            if let Some(d) = dialog.cast::<HtmlDialogElement>() {
                if d.show_modal().is_err() {
                    d.set_open(true);
                }
                if let Some(first) = focusable(&d).into_iter().next() {
                    let _ = first.focus();
                }
            }
            move || {
                if let Some(d) = dialog.cast::<HtmlDialogElement>() {
                    d.close();
                }
            }
        });
    }
    // The browser's own Esc handling would close the dialog behind the app's back.
    let oncancel = props.on_close.reform(|e: Event| e.prevent_default());
    let onkeydown = {
        let (dialog, on_close) = (dialog.clone(), props.on_close.clone());
        Callback::from(move |e: KeyboardEvent| {
            match e.key().as_str() {
                "Escape" | "?" => {
                    e.prevent_default();
                    on_close.emit(());
                }
                "Tab" => {
                    let Some(d) = dialog.cast::<web_sys::Element>() else { return };
                    let all = focusable(&d);
                    let (Some(first), Some(last)) = (all.first(), all.last()) else { return };
                    let active = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
                    let at =
                        |el: &HtmlElement| active.as_ref().is_some_and(|a| a == el.unchecked_ref::<web_sys::Element>());
                    let wrap_to = if e.shift_key() { at(first).then_some(last) } else { at(last).then_some(first) };
                    if let Some(target) = wrap_to {
                        e.prevent_default();
                        let _ = target.focus();
                    }
                }
                _ => {}
            }
            // Keys inside the dialog are its own: no view behind it hears them.
            e.stop_propagation();
        })
    };
    let onclick = props.on_close.reform(|_: MouseEvent| ());
    html! {
        <dialog class="shortcuts" role="dialog" aria-modal="true" aria-labelledby="shortcuts-title" ref={dialog}
            {oncancel} {onkeydown}>
            <div class="shortcuts-head">
                <h2 id="shortcuts-title">{"Keyboard shortcuts"}</h2>
                <button class="shortcuts-close" {onclick} aria-label="Close">{"Close "}<kbd>{"Esc"}</kbd></button>
            </div>
            <div class="shortcuts-body" tabindex="0" aria-label="Keys">
                { for GROUPS.iter().map(|(group, keys)| html! {
                    <section class="shortcuts-group">
                        <h3>{*group}</h3>
                        <dl>
                            { for keys.iter().map(|(key, what)| html! {
                                <><dt><kbd>{*key}</kbd></dt><dd>{*what}</dd></>
                            }) }
                        </dl>
                    </section>
                }) }
            </div>
        </dialog>
    }
}
