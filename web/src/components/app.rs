//! The app: owns the state (one reducer) and the decoding worker, opens files from
//! drops, the file picker and embedding pages (`crate::embed`), and loads the
//! embedded demo on first start.

use std::rc::Rc;

use wasm_bindgen::convert::FromWasmAbi;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DragEvent, HtmlInputElement};
use yew::prelude::*;

use super::doc_view::DocView;
use super::file_list::FileList;
use super::opener::Opener;
use super::status::Status;
use super::{remote, share};
use crate::app::link::{self, Params};
use crate::app::{Action, State};
use crate::bridge::Bridge;
use crate::embed;
use pgolens_protocol::DocId;

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
                opener.open_list(e.data_transfer().and_then(|dt| dt.files()));
            });
            move || {
                over();
                enter();
                leave();
                drop_();
            }
        });
    }

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
                <share::Share opener={opener.clone()} docs={state.linked_docs()} current={state.current} />
            </header>
            <div class="workspace">
                <FileList docs={state.docs.clone()} current={state.current} dispatch={dispatch.clone()} />
                <main class="doc">
                    if let Some(restoring) = &state.restoring {
                        <LinkWaiting restoring={restoring.clone()} dispatch={dispatch.clone()} />
                    }
                    <Status doc={current.clone()} />
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
