//! Sharing what is on screen: a link that carries small profiles (`data=`), and a
//! self-contained page; and opening what such a link or page carries.
//!
//! A link's `data=` values are the files' bytes raw-deflated (RFC 1951, by the
//! browser's `CompressionStream('deflate-raw')`) and base64url-encoded without
//! padding (RFC 4648 section 5), the k-th for the k-th `file=` (`crate::app::link`).
//! The self-contained page is `web/pack.js`'s, asked of the boot script
//! (`globalThis.pgolensPage`, set by `web/boot.js` or by the single file's own).

use std::rc::Rc;

use js_sys::{Array, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{
    Blob, File, ReadableStream, ReadableStreamDefaultReader, ReadableWritablePair, Response, WritableStream,
};
use yew::prelude::*;

use super::download;
use super::js;
use super::opener::Opener;
use crate::app::link::{FileRef, Params};
use crate::app::{Action, Doc};

/// The longest link Share hands out, in characters (the page's URL included): 32 KiB,
/// what Chromium's address bar shows of a URL (`kMaxURLDisplayChars`, content/public/
/// common/content_constants.cc), under Slack's 40,000 characters a message (text
/// around the link included) and GitHub's 65,536 a comment. Browsers open far longer
/// links: Chromium 2 MiB (`url::kMaxURLChars`; 2,097,152 measured by
/// tests/bench/link-limit.mjs), Firefox 1 MiB (`network.standard-url.max-length`).
pub const LINK_LIMIT: usize = 32 * 1024;

/// Files larger than this in all are not compressed to find out whether they fit: no
/// profile compresses 64 times (text ones reach 10 to 20).
const TRY_LIMIT: u64 = 64 * LINK_LIMIT as u64;

// web-sys has the compression streams behind `--cfg=web_sys_unstable_apis`; these
// are the few members used (every browser has them: Chrome 80, Firefox 113, Safari 16.4).
#[wasm_bindgen]
extern "C" {
    /// `CompressionStream` or `DecompressionStream`, as a transform's two ends.
    type TransformEnds;
    #[wasm_bindgen(constructor, js_class = "CompressionStream", catch)]
    fn compressor(format: &str) -> Result<TransformEnds, JsValue>;
    #[wasm_bindgen(constructor, js_class = "DecompressionStream", catch)]
    fn decompressor(format: &str) -> Result<TransformEnds, JsValue>;
    #[wasm_bindgen(method, getter)]
    fn readable(this: &TransformEnds) -> ReadableStream;
    #[wasm_bindgen(method, getter)]
    fn writable(this: &TransformEnds) -> WritableStream;
}

impl TransformEnds {
    fn pair(&self) -> ReadableWritablePair {
        ReadableWritablePair::new(&self.readable(), &self.writable())
    }
}

/// What the boot script offers the app (`web/boot.js`, `web/pack.js`).
fn page_api() -> Option<JsValue> {
    Reflect::get(&js_sys::global(), &"pgolensPage".into()).ok().filter(|v| v.is_object())
}

/// Whether this page is a self-contained one (`web/pack.js`).
fn single_file() -> bool {
    page_api().and_then(|api| Reflect::get(&api, &"single".into()).ok()).is_some_and(|v| v.is_truthy())
}

/// The files a self-contained page carries, if this page is one: its boot script
/// read them from the page's data blocks (the demo when it carries no profile).
pub fn carried_files() -> Vec<File> {
    let Some(carried) = page_api().and_then(|api| Reflect::get(&api, &"carried".into()).ok()) else {
        return Vec::new();
    };
    if !Array::is_array(&carried) {
        return Vec::new();
    }
    Array::from(&carried).iter().filter_map(|f| f.dyn_into::<File>().ok()).collect()
}

/// Opens the profiles a link carries (`data=`); returns whether it carries any.
/// A `data=` that does not decode becomes a document saying so (and a console error).
pub fn open_inline(opener: &Opener, link: &Params) -> bool {
    let data: Vec<String> = link.all("data").map(String::from).collect();
    if data.is_empty() {
        return false;
    }
    let names: Vec<String> = link.all("file").map(|f| FileRef::parse(f).map(|r| r.name).unwrap_or_default()).collect();
    let shown = link.number::<usize>("doc").unwrap_or(0);
    let opener = opener.clone();
    spawn_local(async move {
        let mut files = Vec::new();
        let mut failed = Vec::new();
        for (k, value) in data.iter().enumerate() {
            let name = names.get(k).filter(|n| !n.is_empty()).cloned().unwrap_or_else(|| format!("file-{}", k + 1));
            match inflate_data(value).await.and_then(|bytes| file(&bytes, &name)) {
                Ok(file) => files.push(file),
                Err(e) => failed.push((name, e)),
            }
        }
        // The link written for them keeps their data: a reload opens them again.
        for ((id, _), value) in opener.open_files(files, shown).into_iter().zip(&data) {
            opener.dispatch.dispatch(Action::Source { doc: id, key: "data".into(), value: value.clone() });
        }
        for (name, error) in failed {
            let message = format!("the link's data= for {name} does not decode: {error}");
            web_sys::console::error_1(&format!("pgolens: {message}").into());
            let id = opener.next_id();
            opener.dispatch.dispatch(Action::Add { id, name, size: 0, demo: false, select: false });
            opener.dispatch.dispatch(Action::OpenFailed { doc: id, message });
        }
    });
    true
}

fn file(bytes: &[u8], name: &str) -> Result<File, String> {
    File::new_with_u8_array_sequence(&Array::of1(&Uint8Array::from(bytes)), name).map_err(js::message)
}

/// A link's `data=` value as the file's bytes.
async fn inflate_data(value: &str) -> Result<Vec<u8>, String> {
    let deflated = base64url_decode(value)?;
    let pair = TransformEnds::decompressor("deflate-raw").map_err(js::message)?.pair();
    let blob = Blob::new_with_u8_array_sequence(&Array::of1(&Uint8Array::from(&deflated[..]))).map_err(js::message)?;
    let stream = blob.stream().pipe_through(&pair);
    let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    let mut out = Vec::new();
    loop {
        let chunk = js::next_chunk(&reader).await.map_err(|e| format!("not raw deflate ({})", js::message(e)))?;
        let Some(value) = chunk else { return Ok(out) };
        let value: Uint8Array = value.unchecked_into();
        // A link is at most a few MB: what inflates far past that is no share link.
        if out.len().saturating_add(value.length() as usize) > MAX_INLINE {
            let _ = reader.cancel();
            return Err(format!("it inflates past {} MiB, more than a link carries", MAX_INLINE >> 20));
        }
        out.extend_from_slice(&value.to_vec());
    }
}

/// The most a link's `data=` may inflate to: 32 KiB of link hold about 1 MB of
/// profile at the best ratios seen; a forged link is stopped long before memory is.
const MAX_INLINE: usize = 64 << 20;

async fn deflate(blob: &Blob) -> Result<Vec<u8>, String> {
    let pair = TransformEnds::compressor("deflate-raw").map_err(js::message)?.pair();
    read_all(&blob.stream().pipe_through(&pair)).await
}

async fn read_all(stream: &ReadableStream) -> Result<Vec<u8>, String> {
    let response = Response::new_with_opt_readable_stream(Some(stream)).map_err(js::message)?;
    let buffer = JsFuture::from(response.array_buffer().map_err(js::message)?).await.map_err(js::message)?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// Base64url as links carry it: no padding written, padding accepted.
const BASE64URL: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    base64::engine::GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
);

fn base64url_encode(bytes: &[u8]) -> String {
    base64::Engine::encode(&BASE64URL, bytes)
}

fn base64url_decode(text: &str) -> Result<Vec<u8>, String> {
    base64::Engine::decode(&BASE64URL, text).map_err(|e| format!("not base64url: {e}"))
}

/// The page's URL without its fragment, and its fragment's parameters.
fn location() -> Option<(String, Params)> {
    let location = web_sys::window()?.location();
    let href = location.href().ok()?;
    let base = href.split('#').next().unwrap_or(&href).to_string();
    Some((base, Params::parse(&location.hash().ok()?)))
}

/// The current fragment, naming the open files: the page keeps `location.hash` in
/// sync with the view; until it names the files, they are named here by name and
/// size, the shown one as `doc`.
fn current_params(docs: &[Rc<Doc>], current: Option<pgolens_protocol::DocId>) -> (String, Params) {
    let (base, mut params) = location().unwrap_or_default();
    params.0.retain(|(k, _)| k != "data");
    if params.get("file").is_none() {
        for doc in docs {
            params.push("file", FileRef { name: doc.name.clone(), size: doc.size, id: String::new() }.value());
        }
        if let Some(shown) = docs.iter().position(|d| Some(d.id) == current) {
            params.push("doc", shown.to_string());
        }
    }
    (base, params)
}

/// What Copy link found.
#[derive(Clone, PartialEq)]
enum Shared {
    Busy(&'static str),
    Link {
        link: String,
        copied: bool,
    },
    /// The link would be `length` characters; `packed`: each file's compressed size
    /// (none: too large to try); `url_link`: the view's link naming the files' URLs.
    TooBig {
        length: Option<usize>,
        sizes: Vec<(String, u64, Option<usize>)>,
        url_link: Option<String>,
    },
    Downloaded(String),
    Failed(String),
}

async fn share_link(docs: Vec<Rc<Doc>>, blobs: Vec<Option<Blob>>, current: Option<pgolens_protocol::DocId>) -> Shared {
    let (base, mut params) = current_params(&docs, current);
    let url_link = params.get("url").is_some().then(|| format!("{base}#{}", params.fragment()));
    let files = params.all("file").count();
    if files != docs.len() {
        return Shared::Failed(format!("the link names {files} files and {} are open", docs.len()));
    }
    let total: u64 = docs.iter().map(|d| d.size).sum();
    let mut sizes: Vec<(String, u64, Option<usize>)> = docs.iter().map(|d| (d.name.clone(), d.size, None)).collect();
    if total > TRY_LIMIT {
        return Shared::TooBig { length: None, sizes, url_link };
    }
    for (k, blob) in blobs.iter().enumerate() {
        let Some(blob) = blob else { return Shared::Failed(format!("{} is not at hand any more", docs[k].name)) };
        match deflate(blob).await {
            Ok(packed) => {
                sizes[k].2 = Some(packed.len());
                params.push("data", base64url_encode(&packed));
            }
            Err(e) => return Shared::Failed(format!("{}: {e}", docs[k].name)),
        }
    }
    let link = format!("{base}#{}", params.fragment());
    if link.len() > LINK_LIMIT {
        return Shared::TooBig { length: Some(link.len()), sizes, url_link };
    }
    let copied = match web_sys::window() {
        Some(w) => JsFuture::from(w.navigator().clipboard().write_text(&link)).await.is_ok(),
        None => false,
    };
    Shared::Link { link, copied }
}

async fn download_page(
    docs: Vec<Rc<Doc>>,
    blobs: Vec<Option<Blob>>,
    current: Option<pgolens_protocol::DocId>,
) -> Shared {
    let (_, params) = current_params(&docs, current);
    let files = Array::new();
    for (doc, blob) in docs.iter().zip(&blobs) {
        let Some(blob) = blob else { return Shared::Failed(format!("{} is not at hand any more", doc.name)) };
        match File::new_with_blob_sequence(&Array::of1(blob), &doc.name) {
            Ok(file) => files.push(&file),
            Err(e) => return Shared::Failed(js::message(e)),
        };
    }
    let Some(api) = page_api() else { return Shared::Failed(String::from("this page cannot build one")) };
    let html = async {
        let pack: js_sys::Function = Reflect::get(&api, &"pack".into())?.dyn_into()?;
        let promise: js_sys::Promise = pack.call2(&api, &files, &params.fragment().into())?.dyn_into()?;
        JsFuture::from(promise).await
    };
    match html.await.map(|h| h.as_string()) {
        Ok(Some(html)) => {
            let name = match docs.iter().find(|d| Some(d.id) == current).or(docs.first()) {
                Some(doc) => format!("{}.pgolens.html", doc.name),
                None => String::from("pgolens.html"),
            };
            match download::save(&name, html.as_bytes()) {
                Some(()) => Shared::Downloaded(name),
                None => Shared::Failed(String::from("the browser refused the download")),
            }
        }
        Ok(None) => Shared::Failed(String::from("the page builder returned no text")),
        Err(e) => Shared::Failed(js::message(e)),
    }
}

#[derive(Properties, Clone)]
pub struct ShareProps {
    /// The open files' handles (`Opener::blobs`).
    pub opener: Opener,
    /// The open documents links name, in their order (`State::linked_docs`).
    pub docs: Vec<Rc<Doc>>,
    /// The shown document (`State::current`).
    pub current: Option<pgolens_protocol::DocId>,
}

impl PartialEq for ShareProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.opener.blobs, &other.opener.blobs) && self.docs == other.docs && self.current == other.current
    }
}

/// The Share button of the top bar and its panel: Copy link, Download HTML.
#[function_component]
pub fn Share(props: &ShareProps) -> Html {
    let open = use_state_eq(|| false);
    let shared = use_state_eq(|| None::<Shared>);
    let handles = {
        let blobs = props.opener.blobs.borrow();
        // A file this page carries is at hand in the page too (whatever the opener kept).
        let carried = carried_files();
        let carried = |doc: &Doc| {
            carried.iter().find(|f| f.name() == doc.name && f.size() as u64 == doc.size).map(|f| Blob::from(f.clone()))
        };
        props.docs.iter().map(|d| blobs.get(&d.id).cloned().or_else(|| carried(d))).collect::<Vec<_>>()
    };
    // A new view (or new files) makes the last result stale.
    {
        let shared = shared.clone();
        use_effect_with((props.docs.clone(), props.current), move |_| shared.set(None));
    }
    let toggle = {
        let open = open.clone();
        Callback::from(move |_| open.set(!*open))
    };
    let copy = {
        let (shared, docs, blobs, current) = (shared.clone(), props.docs.clone(), handles.clone(), props.current);
        Callback::from(move |_: MouseEvent| {
            shared.set(Some(Shared::Busy("Compressing…")));
            let (shared, docs, blobs) = (shared.clone(), docs.clone(), blobs.clone());
            spawn_local(async move { shared.set(Some(share_link(docs, blobs, current).await)) });
        })
    };
    let save = {
        let (shared, docs, blobs, current) = (shared.clone(), props.docs.clone(), handles.clone(), props.current);
        Callback::from(move |_: MouseEvent| {
            shared.set(Some(Shared::Busy("Building the page…")));
            let (shared, docs, blobs) = (shared.clone(), docs.clone(), blobs.clone());
            spawn_local(async move { shared.set(Some(download_page(docs, blobs, current).await)) });
        })
    };
    let copy_url = |link: String| {
        Callback::from(move |_: MouseEvent| {
            if let Some(w) = web_sys::window() {
                let _ = w.navigator().clipboard().write_text(&link);
            }
        })
    };
    let nothing = props.docs.is_empty();
    let result = match (*shared).clone() {
        None => html! {},
        Some(Shared::Busy(what)) => html! { <p class="share-status" role="status">{what}</p> },
        Some(Shared::Link { link, copied }) => html! {
            <>
                <p class="share-status" role="status">
                    { if copied { format!("Link copied ({} characters).", link.len()) } else { format!("Link ready ({} characters): copy it from the field.", link.len()) } }
                </p>
                <input class="share-link" readonly=true aria-label="Link to share" value={link} style="width: 100%" />
            </>
        },
        Some(Shared::TooBig { length, sizes, url_link }) => {
            let what = sizes
                .iter()
                .map(|(name, size, packed)| match packed {
                    Some(p) => format!(
                        "{name}: {} compressed to {}",
                        super::status::bytes(*size),
                        super::status::bytes(*p as u64)
                    ),
                    None => format!("{name}: {}", super::status::bytes(*size)),
                })
                .collect::<Vec<_>>()
                .join(", ");
            let head = match length {
                Some(n) => format!(
                    "The files do not fit in a link: it would be {n} characters, and links are kept under {LINK_LIMIT}"
                ),
                None => format!("The files are too large for a link (links are kept under {LINK_LIMIT} characters)"),
            };
            html! {
                <>
                    <p class="share-status" role="status">{format!("{head} ({what}).")}</p>
                    <p class="share-alternatives">
                        {"Share the files as a self-contained page instead ("}<strong>{"Download HTML"}</strong>{")"}
                        {
                            match url_link {
                                Some(link) => html! {
                                    <>{", or a link to where they came from: "}<button type="button" onclick={copy_url(link)}>{"Copy #url= link"}</button></>
                                },
                                None => html! { {"."} },
                            }
                        }
                    </p>
                </>
            }
        }
        Some(Shared::Downloaded(name)) => {
            html! { <p class="share-status" role="status">{format!("Saved {name}: it opens offline, from any folder.")}</p> }
        }
        Some(Shared::Failed(message)) => html! { <p class="share-status error" role="alert">{message}</p> },
    };
    let title = if single_file() {
        "A link to this view, or this page with its files"
    } else {
        "A link to this view, or a page with its files"
    };
    html! {
        <div class="share" style="position: relative">
            <button type="button" class="share-button" aria-expanded={(*open).to_string()} {title} onclick={toggle}>{"Share"}</button>
            if *open {
                <div class="share-panel" role="dialog" aria-label="Share" style="position: absolute; right: 0; top: calc(100% + 6px); z-index: 10; width: 26em; padding: 10px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); display: flex; flex-direction: column; gap: 8px">
                    <div style="display: flex; gap: 8px">
                        <button type="button" disabled={nothing} onclick={copy}>{"Copy link"}</button>
                        <button type="button" disabled={nothing} onclick={save}>{"Download HTML"}</button>
                    </div>
                    if nothing { <p class="share-status muted">{"Open a file to share it."}</p> }
                    {result}
                </div>
            }
        </div>
    }
}
