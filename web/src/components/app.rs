//! The app: owns the state (one reducer) and the decoding worker, opens files from
//! drops, the file picker and embedding pages (`crate::embed`), and loads the
//! embedded demo on first start.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DragEvent, HtmlInputElement};
use yew::prelude::*;

use super::doc_view::DocView;
use super::file_list::FileList;
use super::status::Status;
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

/// Everything the app needs to open a file: the worker, and the next document number.
#[derive(Clone)]
struct Opener {
    bridge: Rc<RefCell<Option<Bridge>>>,
    next_id: Rc<RefCell<DocId>>,
    dispatch: UseReducerDispatcher<State>,
}

impl Opener {
    fn next_id(&self) -> DocId {
        let mut next = self.next_id.borrow_mut();
        *next = next.wrapping_add(1);
        *next
    }

    /// Opens files as a drop of them does: each handed to the worker, and shown
    /// is `files[shown]`. Returns the names handed over.
    fn open_files(&self, files: Vec<web_sys::File>, shown: usize) -> Vec<String> {
        let bridge = self.bridge.borrow();
        let Some(bridge) = bridge.as_ref() else { return Vec::new() };
        let mut opened = Vec::new();
        for (i, file) in files.iter().enumerate() {
            let id = self.next_id();
            let name = file.name();
            let select = i == shown;
            match bridge.open_file(id, file) {
                Ok(()) => {
                    let size = file.size() as u64;
                    self.dispatch.dispatch(Action::Add { id, name: name.clone(), size, demo: false, select });
                    opened.push(name);
                }
                Err(e) => {
                    self.dispatch.dispatch(Action::Add { id, name, size: 0, demo: false, select });
                    let message =
                        e.as_string().unwrap_or_else(|| String::from("could not hand the file to the worker"));
                    self.dispatch.dispatch(Action::OpenFailed { doc: id, message });
                }
            }
        }
        opened
    }

    /// The files of a drop or of the file picker, shown from the first.
    fn open_list(&self, files: Option<web_sys::FileList>) {
        let Some(files) = files else { return };
        self.open_files((0..files.length()).filter_map(|i| files.get(i)).collect(), 0);
    }

    /// Fetches the demo profile shipped with the page and transfers it to the worker.
    async fn open_demo(self, url: String) -> Result<(), JsValue> {
        let window = web_sys::window().ok_or("no window")?;
        let response: web_sys::Response = JsFuture::from(window.fetch_with_str(&url)).await?.dyn_into()?;
        if !response.ok() {
            return Err(format!("{url}: HTTP {}", response.status()).into());
        }
        let buffer: js_sys::ArrayBuffer = JsFuture::from(response.array_buffer()?).await?.dyn_into()?;
        let name = url.rsplit('/').next().unwrap_or(&url).to_string();
        let id = self.next_id();
        let size = u64::from(buffer.byte_length());
        self.bridge.borrow().as_ref().ok_or("no worker")?.open_buffer(id, &name, &buffer)?;
        self.dispatch.dispatch(Action::Add { id, name, size, demo: true, select: false });
        Ok(())
    }
}

/// The demo's URL, from `data-demo` on the mount point (the build fills it in).
fn demo_url() -> Option<String> {
    let document = web_sys::window()?.document()?;
    document.get_element_by_id("app")?.get_attribute("data-demo").filter(|u| !u.is_empty())
}

/// Listens on the window, so a drop anywhere on the page opens the files.
fn listen(event: &str, handler: impl FnMut(DragEvent) + 'static) -> impl FnOnce() {
    let closure = Closure::<dyn FnMut(DragEvent)>::new(handler);
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
    let opener = Opener { bridge: bridge.clone(), next_id, dispatch: state.dispatcher() };

    // The worker, and the demo, once.
    {
        let opener = opener.clone();
        use_effect_with((), move |()| {
            let dispatch = opener.dispatch.clone();
            match Bridge::new(Callback::from(move |action| dispatch.dispatch(action))) {
                Ok(b) => *opener.bridge.borrow_mut() = Some(b),
                Err(e) => web_sys::console::error_2(&"pgolens: cannot start the decoding worker".into(), &e),
            }
            if let Some(url) = demo_url() {
                let demo = opener.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    if let Err(e) = demo.open_demo(url).await {
                        web_sys::console::warn_2(&"pgolens: the demo profile did not load".into(), &e);
                    }
                });
            }
            // Files from an embedding page: it is told the page is ready once the worker is.
            let embedded = opener.clone();
            let stop_embed = opener
                .bridge
                .borrow()
                .is_some()
                .then(|| embed::install(move |files, shown| embedded.open_files(files, shown)));
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
            </header>
            <div class="workspace">
                <FileList docs={state.docs.clone()} current={state.current} dispatch={dispatch.clone()} />
                <main class="doc">
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
