//! The app: owns the state (one reducer) and the decoding worker, opens files from
//! drops, the file picker and embedding pages (`crate::embed`), and loads the
//! embedded demo on first start. It also holds the page's global keys (`1`…`9`
//! for the views, `?` for the list of keys) and keeps the focus off `<body>`: an
//! element re-rendered away while focused hands the focus to its successor.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::convert::FromWasmAbi;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DragEvent, Element, HtmlElement, HtmlInputElement, KeyboardEvent};
use yew::prelude::*;

use super::doc_view::DocView;
use super::file_list::FileList;
use super::opener::Opener;
use super::shortcuts::Shortcuts;
use super::status::Status;
use super::{remote, share};
use crate::app::link::{self, Params};
use crate::app::{Action, State};
use crate::bridge::Bridge;
use crate::embed;
use pgolens_protocol::{DocId, View};

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        if next.update(action) {
            Rc::new(next)
        } else {
            self
        }
    }
}

/// The link the page was opened with (its fragment).
fn current_link() -> Params {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    Params::parse(&hash)
}

/// Puts `fragment` in the URL, as a new history entry when it is a step from the
/// one there ([`link::is_step`]), else in place of it.
fn write_link(fragment: &str) {
    let Some(window) = web_sys::window() else { return };
    let location = window.location();
    let old = location.hash().unwrap_or_default();
    let old = old.strip_prefix('#').unwrap_or(&old);
    if old == fragment {
        return;
    }
    let Ok(history) = window.history() else { return };
    let url = format!("#{fragment}");
    let step = !old.is_empty() && link::is_step(&Params::parse(old), &Params::parse(fragment));
    let written = if step {
        history.push_state_with_url(&JsValue::NULL, "", Some(&url))
    } else {
        history.replace_state_with_url(&JsValue::NULL, "", Some(&url))
    };
    if let Err(e) = written {
        web_sys::console::warn_2(&"pgolens: cannot write the view into the URL".into(), &e);
    }
}

/// The demo's URL, from `data-demo` on the mount point (the build fills it in).
fn demo_url() -> Option<String> {
    let document = web_sys::window()?.document()?;
    document.get_element_by_id("app")?.get_attribute("data-demo").filter(|u| !u.is_empty())
}

/// Listens on the window (a drop anywhere on the page, the history's steps);
/// returns what stops listening.
fn listen<E: FromWasmAbi + 'static>(event: &str, handler: impl FnMut(E) + 'static) -> impl FnOnce() {
    let closure = Closure::<dyn FnMut(E)>::new(handler);
    let window = web_sys::window();
    if let Some(w) = &window {
        let _ = w.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
    }
    let event = event.to_string();
    move || {
        if let Some(w) = &window {
            let _ = w.remove_event_listener_with_callback(&event, closure.as_ref().unchecked_ref());
        }
    }
}

/// Whether keys typed at `target` are text (an input, a text area, a select, an
/// editable element): the global keys leave them alone.
fn typing_into(target: Option<web_sys::EventTarget>) -> bool {
    let Some(el) = target.and_then(|t| t.dyn_into::<HtmlElement>().ok()) else { return false };
    match el.tag_name().as_str() {
        "TEXTAREA" | "SELECT" => true,
        "INPUT" => !matches!(
            el.get_attribute("type").unwrap_or_default().as_str(),
            "checkbox" | "radio" | "button" | "submit" | "reset" | "range" | "color" | "file"
        ),
        _ => el.is_content_editable(),
    }
}

fn document() -> Option<web_sys::Document> {
    web_sys::window()?.document()
}

/// Whether the focus is nowhere (on `<body>`).
fn focus_lost() -> bool {
    let Some(doc) = document() else { return false };
    match doc.active_element() {
        None => true,
        Some(active) => doc.body().is_some_and(|b| b.unchecked_ref::<Element>() == &active),
    }
}

/// The elements that may stand in for `lost` (once focused, now gone), best
/// first: the one with its id, the one of its tag, classes, label and tab stop,
/// and the selected tab.
fn successors(lost: &Element) -> Vec<HtmlElement> {
    let Some(doc) = document() else { return Vec::new() };
    let mut out = Vec::new();
    let id = lost.id();
    if !id.is_empty() {
        out.extend(doc.get_element_by_id(&id));
    }
    let classes: String = lost.class_name().split_whitespace().map(|c| format!(".{c}")).collect();
    if !classes.is_empty() {
        let mut selector = format!("{}{classes}", lost.tag_name().to_ascii_lowercase());
        for attribute in ["aria-label", "tabindex"] {
            if let Some(value) = lost.get_attribute(attribute) {
                selector.push_str(&format!("[{attribute}=\"{}\"]", value.replace('"', "\\\"")));
            }
        }
        out.extend(doc.query_selector(&selector).ok().flatten());
    }
    out.extend(doc.query_selector("[role=tab][aria-selected=true]").ok().flatten());
    out.into_iter().filter_map(|el| el.dyn_into::<HtmlElement>().ok()).collect()
}

/// Puts the focus back on `lost`'s successor if the focus was lost with it.
fn restore_focus(lost: &RefCell<Option<Element>>) {
    let gone = lost.borrow().as_ref().is_some_and(|el| !el.is_connected());
    if !gone || !focus_lost() {
        return;
    }
    let Some(el) = lost.borrow_mut().take() else { return };
    // The first that takes the focus (a look-alike may not be focusable).
    let Some(next) = successors(&el).into_iter().find(|next| {
        let _ = next.focus();
        !focus_lost()
    }) else {
        return;
    };
    // A text field re-drawn under the typing: the caret goes back to its end.
    if let Some(input) = next.dyn_ref::<HtmlInputElement>() {
        let end = input.value().encode_utf16().count() as u32;
        let _ = input.set_selection_range(end, end);
    }
}

#[function_component]
pub fn App() -> Html {
    let state = use_reducer(State::default);
    let bridge = use_mut_ref(|| None::<Bridge>);
    let next_id = use_mut_ref(|| 0 as DocId);
    let dragging = use_state_eq(|| false);
    let (blobs, listed) = (use_mut_ref(Default::default), use_mut_ref(Default::default));
    let opener = Opener { bridge: bridge.clone(), next_id, blobs, listed, dispatch: state.dispatcher() };

    // The worker, and the demo, once.
    {
        let opener = opener.clone();
        use_effect_with((), move |()| {
            let dispatch = opener.dispatch.clone();
            match Bridge::new(Callback::from(move |action| dispatch.dispatch(action))) {
                Ok(b) => *opener.bridge.borrow_mut() = Some(b),
                Err(e) => web_sys::console::error_2(&"pgolens: cannot start the decoding worker".into(), &e),
            }
            // What the page opens first: the files a self-contained page or a link
            // carries, else those a link names, else the demo. A link's view is
            // shown once the files it names are open.
            let link = current_link();
            if link.get("file").is_some() {
                opener.dispatch.dispatch(Action::Restore(link.clone()));
            }
            let carried = share::carried_files();
            let urls: Vec<String> = link.all("url").map(String::from).collect();
            if !carried.is_empty() {
                opener.open_files(carried, 0);
            } else if share::open_inline(&opener, &link) {
            } else if !urls.is_empty() {
                remote::open_urls(&opener, urls);
            } else if let Some(url) = demo_url() {
                let demo = opener.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    if let Err(e) = demo.open_demo(url).await {
                        web_sys::console::warn_2(&"pgolens: the demo profile did not load".into(), &e);
                    }
                });
            }
            // Files from an embedding page: it is told the page is ready once the worker is.
            let embedded = opener.clone();
            let stop_embed = opener.bridge.borrow().is_some().then(|| {
                embed::install(move |files, shown| {
                    embedded.open_files(files, shown).into_iter().map(|(_, name)| name).collect()
                })
            });
            let bridge = opener.bridge.clone();
            move || {
                if let Some(stop) = stop_embed {
                    stop();
                }
                drop(bridge.borrow_mut().take())
            }
        });
    }

    // Post what the reducer queued, then acknowledge it.
    {
        let queue = state.outbox.queue.clone();
        let bridge = bridge.clone();
        let dispatch = state.dispatcher();
        use_effect_with(queue, move |queue| {
            if let (Some(b), Some(last)) = (bridge.borrow().as_ref(), queue.last()) {
                for envelope in queue {
                    if let Err(e) = b.post(envelope) {
                        web_sys::console::error_2(&"pgolens: cannot reach the worker".into(), &e);
                    }
                }
                dispatch.dispatch(Action::Posted(last.req));
            }
        });
    }

    // A closed document's handle goes (and, for a fetch, its download).
    {
        let opener = opener.clone();
        let open: Vec<DocId> = state.docs.iter().map(|d| d.id).collect();
        use_effect_with(open, move |open| opener.forget_closed(open));
    }

    // The view goes into the URL: a selection is a step of the history, the rest
    // replaces the current entry; back and forward (and an edited fragment) show
    // what the URL says.
    {
        let fragment = state.link().fragment();
        use_effect_with(fragment, move |fragment| write_link(fragment));
    }
    {
        let dispatch = state.dispatcher();
        use_effect_with((), move |()| {
            listen("popstate", move |_: web_sys::PopStateEvent| dispatch.dispatch(Action::Restore(current_link())))
        });
    }

    // Drops anywhere on the page.
    {
        let opener = opener.clone();
        let dragging = dragging.clone();
        use_effect_with((), move |()| {
            let over = {
                let dragging = dragging.clone();
                listen("dragover", move |e: DragEvent| {
                    e.prevent_default();
                    dragging.set(true);
                })
            };
            let enter = listen("dragenter", |e: DragEvent| e.prevent_default());
            let leave = {
                let dragging = dragging.clone();
                listen("dragleave", move |e: DragEvent| {
                    // Leaving the window, not just moving between elements.
                    if e.related_target().is_none() {
                        dragging.set(false);
                    }
                })
            };
            let drop_ = listen("drop", move |e: DragEvent| {
                e.prevent_default();
                dragging.set(false);
                opener.open_drop(e.data_transfer());
            });
            move || {
                over();
                enter();
                leave();
                drop_();
            }
        });
    }

    // The global keys: `1`…`9` show the file's n-th view, `?` lists the keys. A
    // key a view handled (default prevented) or typed into a text field is not theirs.
    let shortcuts = use_state_eq(|| false);
    let focused = use_mut_ref(|| None::<Element>);
    let before_shortcuts = use_mut_ref(|| None::<Element>);
    let tabs = use_mut_ref(Vec::<View>::new);
    *tabs.borrow_mut() = state
        .current
        .and_then(|id| state.docs.iter().find(|d| d.id == id))
        .filter(|d| d.phase == crate::app::Phase::Ready)
        .map(|d| d.tabs())
        .unwrap_or_default();
    {
        let (dispatch, tabs, shortcuts, before) =
            (state.dispatcher(), tabs.clone(), shortcuts.setter(), before_shortcuts.clone());
        use_effect_with((), move |()| {
            listen("keydown", move |e: KeyboardEvent| {
                if e.default_prevented() || e.ctrl_key() || e.meta_key() || e.alt_key() || typing_into(e.target()) {
                    return;
                }
                let key = e.key();
                if key == "?" {
                    e.prevent_default();
                    *before.borrow_mut() = document().and_then(|d| d.active_element());
                    shortcuts.set(true);
                    return;
                }
                let Some(n) = key.parse::<usize>().ok().filter(|n| (1..=9).contains(n)) else { return };
                let tab = tabs.borrow().get(n - 1).copied();
                if let Some(tab) = tab {
                    e.prevent_default();
                    dispatch.dispatch(Action::SelectTab(tab));
                }
            })
        });
    }
    // Where the focus is, so that it can be handed on when its element is re-rendered away.
    {
        let focused = focused.clone();
        use_effect_with((), move |()| {
            listen("focusin", move |e: web_sys::FocusEvent| {
                *focused.borrow_mut() = e.target().and_then(|t| t.dyn_into::<Element>().ok());
            })
        });
    }
    // The focus goes back where it was when the list of keys closes (once the
    // dialog, modal, has left the page).
    {
        let (before, focused) = (before_shortcuts.clone(), focused.clone());
        use_effect_with(*shortcuts, move |&open| {
            if !open {
                let back = before.borrow_mut().take().filter(|el| el.is_connected());
                match back.and_then(|el| el.dyn_into::<HtmlElement>().ok()) {
                    Some(el) => {
                        let _ = el.focus();
                    }
                    None => restore_focus(&focused),
                }
            }
        });
    }
    {
        let focused = focused.clone();
        use_effect(move || restore_focus(&focused));
    }
    let close_shortcuts = {
        let shortcuts = shortcuts.clone();
        Callback::from(move |()| shortcuts.set(false))
    };

    let on_pick = {
        let opener = opener.clone();
        Callback::from(move |e: Event| {
            if let Some(input) = e.target_dyn_into::<HtmlInputElement>() {
                opener.open_list(input.files());
                // Picking the same file again is a new open.
                input.set_value("");
            }
        })
    };
    let dispatch = {
        let state = state.clone();
        Callback::from(move |action: Action| state.dispatch(action))
    };
    let current = state.current.and_then(|id| state.docs.iter().find(|d| d.id == id).cloned());

    html! {
        <div class={classes!("app", dragging.then_some("dragging"))}>
            <header class="topbar">
                <h1 class="brand">{"pgolens"}</h1>
                <span class="tagline">{"compiler and optimizer profiles, decoded in your browser"}</span>
                <span class="spacer"></span>
                <label class="open-button">
                    {"Open files…"}
                    <input type="file" multiple=true aria-label="Open profile files" onchange={on_pick} />
                </label>
                <span class="hint">{"or drop files anywhere"}</span>
                <button class="keys-button" title="Keyboard shortcuts (?)" aria-keyshortcuts="?"
                    onclick={{
                        let (shortcuts, before) = (shortcuts.clone(), before_shortcuts.clone());
                        Callback::from(move |_: MouseEvent| {
                            *before.borrow_mut() = document().and_then(|d| d.active_element());
                            shortcuts.set(true);
                        })
                    }}>{"Keys "}<kbd>{"?"}</kbd></button>
                <share::Share opener={opener.clone()} docs={state.linked_docs()} current={state.current} />
            </header>
            <div class="workspace">
                <FileList docs={state.docs.clone()} current={state.current} dispatch={dispatch.clone()} />
                <main class="doc">
                    if let Some(restoring) = &state.restoring {
                        <LinkWaiting restoring={restoring.clone()} dispatch={dispatch.clone()} />
                    }
                    <Status doc={current.clone()} dispatch={dispatch.clone()} opener={opener.clone()} />
                    {
                        match current {
                            Some(doc) => html! { <DocView {doc} {dispatch} /> },
                            None => html! {
                                <div class="empty">
                                    <p>{"Drop perf.data, LLVM .profraw/.profdata, BOLT .fdata/.yaml, AutoFDO or sample profiles here, or use "}<strong>{"Open files…"}</strong>{"."}</p>
                                    <p class="muted">{"Files are decoded on your machine: nothing is uploaded."}</p>
                                </div>
                            },
                        }
                    }
                </main>
            </div>
            if *dragging {
                <div class="drop-overlay" aria-hidden="true"><div>{"Drop profile files to open them"}</div></div>
            }
            if *shortcuts {
                <Shortcuts on_close={close_shortcuts} />
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct LinkWaitingProps {
    restoring: crate::app::Restoring,
    dispatch: Callback<Action>,
}

/// What a link shows once its files are here: which ones to drop.
#[function_component]
fn LinkWaiting(props: &LinkWaitingProps) -> Html {
    let forget = props.dispatch.reform(|_| Action::ForgetLink);
    let missing = &props.restoring.missing;
    html! {
        <div class="link-waiting" aria-live="polite">
            <p>
                {"This link shows "}
                {if missing.len() == 1 { "a file that is not open here" } else { "files that are not open here" }}
                {": drop "}{if missing.len() == 1 { "it" } else { "them" }}{" on the page (each is checked by its size and fingerprint)."}
            </p>
            <ul>
                { for missing.iter().map(|f| html! {
                    <li>
                        <strong class="name">{&f.name}</strong>
                        {format!(" — {} ({} bytes)", super::status::bytes(f.size), f.size)}
                        if !f.id.is_empty() { <span class="muted">{format!(" (fingerprint {}…)", f.id)}</span> }
                    </li>
                }) }
            </ul>
            { for props.restoring.impostors.iter().map(|name| html! {
                <p class="error">{format!("{name} has the linked name and size, but not its fingerprint: it is another file.")}</p>
            }) }
            <button class="link-button" onclick={forget}>{"Show what is open instead"}</button>
        </div>
    }
}
