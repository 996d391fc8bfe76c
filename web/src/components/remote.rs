//! Profiles a link names (`#url=...`): fetched with progress and cancel.
//!
//! Each URL becomes a document at once, so the file list shows its download; the
//! body is streamed (Fetch Standard, `Response.body`) to report progress, kept as
//! chunks, made a `File` and handed to the worker like a dropped one. Closing the
//! document aborts its download (`AbortController`). The file's name is the URL
//! path's last segment, or the server's `Content-Disposition` filename (RFC 6266).
//! A `Content-Encoding` the server applied is undone by the browser; a file that is
//! itself gzip or zstd is decompressed by the decoders.

use std::cell::RefCell;
use std::collections::BTreeMap;

use js_sys::{Array, Uint8Array};
use pgolens_protocol::{DocId, FromWorker, Phase, Reply};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{AbortController, File, FilePropertyBag, ReadableStreamDefaultReader, RequestInit, Response, Url};

use super::js;
use super::opener::Opener;
use crate::app::Action;

/// Progress is reported every 1% of a download of known size, and every 4 MiB of
/// one of unknown size.
const UNKNOWN_SIZE_STEP: u64 = 4 << 20;

/// What the browser says when a fetch is refused or cannot connect: it does not
/// tell a page which (CORS failures are opaque by design), so both are named.
const REQUEST_FAILED: &str = "the request failed: the server refused to share it with this page (CORS: it must send \
     Access-Control-Allow-Origin) or could not be reached; download the file and drop it here instead";

thread_local! {
    /// The downloads under way, by document, to abort when it is closed.
    static DOWNLOADS: RefCell<BTreeMap<DocId, AbortController>> = const { RefCell::new(BTreeMap::new()) };
}

/// Fetches each of `urls` into a document, in order (a profile, then its binaries),
/// all at once; the first is shown.
pub fn open_urls(opener: &Opener, urls: Vec<String>) {
    for (i, url) in urls.into_iter().enumerate() {
        let id = opener.next_id();
        let resolved = resolve(&url);
        let name = match &resolved {
            Ok(resolved) => name_from_path(&resolved.pathname()),
            Err(_) => url.clone(),
        };
        opener.dispatch.dispatch(Action::Add { id, name, size: 0, demo: false, select: i == 0 });
        // The link written for it keeps the URL: a reload fetches it again.
        opener.dispatch.dispatch(Action::Source { doc: id, key: "url".into(), value: url.clone() });
        let resolved = match resolved {
            Ok(resolved) => resolved,
            Err(message) => {
                opener.dispatch.dispatch(Action::OpenFailed { doc: id, message });
                continue;
            }
        };
        let Ok(controller) = AbortController::new() else {
            let message = String::from("this browser cannot fetch files (no AbortController)");
            opener.dispatch.dispatch(Action::OpenFailed { doc: id, message });
            continue;
        };
        DOWNLOADS.with(|d| d.borrow_mut().insert(id, controller.clone()));
        let opener = opener.clone();
        spawn_local(async move {
            let href = resolved.href();
            let fetched = download(&opener, id, &href, &controller).await;
            DOWNLOADS.with(|d| d.borrow_mut().remove(&id));
            match fetched {
                // Closed as its last bytes came: nothing to hand.
                Ok(_) if controller.signal().aborted() => {}
                Ok(file) => {
                    opener.hand(id, &file);
                }
                Err(message) => opener.dispatch.dispatch(Action::OpenFailed { doc: id, message }),
            }
        });
    }
}

/// Aborts the downloads of documents closed.
pub fn abort(closed: &[DocId]) {
    DOWNLOADS.with(|d| {
        let mut downloads = d.borrow_mut();
        for id in closed {
            if let Some(controller) = downloads.remove(id) {
                controller.abort();
            }
        }
    });
}

/// `url` resolved against the page, if it is one this page may fetch; else why not
/// (the document is named by the URL itself then).
fn resolve(url: &str) -> Result<Url, String> {
    let page = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    let resolved =
        Url::new_with_base(url, &page).map_err(|_| String::from("not a valid URL; check the link's url= value"))?;
    let scheme = resolved.protocol();
    if scheme != "http:" && scheme != "https:" {
        return Err(format!(
            "only http and https URLs are fetched, not {scheme} URLs; download the file and drop it here instead"
        ));
    }
    // The page's policy (index.html) lets plain http come from this machine or the
    // page's own origin only; the browser would only say the request failed.
    let page_origin = Url::new(&page).map(|p| p.origin()).unwrap_or_default();
    let local = matches!(resolved.hostname().as_str(), "localhost" | "127.0.0.1");
    if scheme == "http:" && !local && resolved.origin() != page_origin {
        return Err(String::from(
            "plain http is fetched only from this machine (it could be read or altered on the way); use an https \
             URL, or download the file and drop it here instead",
        ));
    }
    Ok(resolved)
}

/// The name a URL path gives a file: its last segment, percent-decoded.
fn name_from_path(path: &str) -> String {
    let last = path.rsplit('/').next().unwrap_or_default();
    let decoded = js_sys::decode_uri_component(last).map(String::from).unwrap_or_else(|_| last.to_string());
    if decoded.is_empty() {
        String::from("download")
    } else {
        decoded
    }
}

/// The filename a `Content-Disposition` header gives (RFC 6266 section 4.3):
/// `filename*` (RFC 8187, `UTF-8''percent-encoded`) wins over `filename`.
fn disposition_name(header: &str) -> Option<String> {
    let mut plain = None;
    let mut extended = None;
    for param in header.split(';').skip(1) {
        let Some((key, value)) = param.split_once('=') else { continue };
        let value = value.trim();
        match key.trim().to_ascii_lowercase().as_str() {
            "filename*" => {
                let encoded = value.splitn(3, '\'').nth(2).unwrap_or(value);
                extended = js_sys::decode_uri_component(encoded).ok().map(String::from);
            }
            "filename" => {
                let unquoted = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value);
                plain = Some(unquoted.replace("\\\"", "\"").replace("\\\\", "\\"));
            }
            _ => {}
        }
    }
    // Only the last path segment: a name is never a path.
    extended.or(plain).map(|n| n.rsplit(['/', '\\']).next().unwrap_or_default().to_string()).filter(|n| !n.is_empty())
}

/// Why a server's status means no file, and what to do.
fn status_reason(status: u16) -> &'static str {
    match status {
        401 | 407 => {
            "the server wants a login, which this page cannot give; download the file and drop it here instead"
        }
        403 => "the server refuses access to it; download the file and drop it here instead",
        404 | 410 => "the server has no such file",
        500..=599 => "the server failed; try again later, or download the file and drop it here instead",
        _ => "the server did not send the file",
    }
}

/// The standard reason phrase of a status, for HTTP/2 and HTTP/3, which send none.
fn status_text(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        407 => "Proxy Authentication Required",
        410 => "Gone",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}

/// Fetches `url` into a `File`, reporting progress to document `id`; says why not.
async fn download(opener: &Opener, id: DocId, url: &str, controller: &AbortController) -> Result<File, String> {
    let window = web_sys::window().ok_or("no window")?;
    let signal = controller.signal();
    let cancelled = || format!("{url}: the download was cancelled");
    let init = RequestInit::new();
    init.set_signal(Some(&signal));
    let response = match JsFuture::from(window.fetch_with_str_and_init(url, &init)).await {
        Ok(response) => response.dyn_into::<Response>().map_err(|_| format!("{url}: no response"))?,
        Err(_) if signal.aborted() => return Err(cancelled()),
        Err(_) => return Err(format!("{url}: {REQUEST_FAILED}")),
    };
    if !response.ok() {
        let status = response.status();
        let text = response.status_text();
        let text = if text.is_empty() { status_text(status).to_string() } else { text };
        let text = if text.is_empty() { String::new() } else { format!(" {text}") };
        return Err(format!("HTTP {status}{text} from {url}: {}", status_reason(status)));
    }
    let headers = response.headers();
    let header = |name: &str| headers.get(name).ok().flatten();
    // With a Content-Encoding the length counts the encoded bytes, not those read.
    let encoded = header("content-encoding").is_some_and(|e| !e.eq_ignore_ascii_case("identity"));
    let mut total =
        if encoded { 0 } else { header("content-length").and_then(|l| l.trim().parse::<u64>().ok()).unwrap_or(0) };
    let name = header("content-disposition")
        .and_then(|d| disposition_name(&d))
        .unwrap_or_else(|| Url::new(url).map(|u| name_from_path(&u.pathname())).unwrap_or_default());
    let progress = |loaded: u64, total: u64| {
        let reply = Reply::Progress { loaded, total, phase: Phase::Read };
        opener.dispatch.dispatch(Action::Worker(Box::new(FromWorker { doc: id, req: None, reply })));
    };
    progress(0, total);

    let chunks = Array::new();
    let mut loaded = 0u64;
    if let Some(body) = response.body() {
        let reader: ReadableStreamDefaultReader =
            body.get_reader().dyn_into().map_err(|_| format!("{url}: the body cannot be read"))?;
        let step = if total > 0 { (total / 100).max(1) } else { UNKNOWN_SIZE_STEP };
        let mut next_report = step;
        loop {
            let value = match js::next_chunk(&reader).await {
                Ok(Some(value)) => value,
                Ok(None) => break,
                Err(_) if signal.aborted() => return Err(cancelled()),
                Err(e) => {
                    return Err(format!(
                        "{url}: the download broke off after {loaded} bytes ({}); try again, or download the file \
                         and drop it here instead",
                        js::message(e)
                    ))
                }
            };
            let Ok(chunk) = value.dyn_into::<Uint8Array>() else {
                return Err(format!("{url}: the body is not bytes"));
            };
            loaded = loaded.saturating_add(u64::from(chunk.length()));
            chunks.push(&chunk);
            if loaded >= next_report {
                total = total.max(loaded);
                progress(loaded, total);
                next_report = loaded.saturating_add(step);
            }
        }
    }
    progress(loaded, loaded);
    let options = FilePropertyBag::new();
    if let Some(kind) = header("content-type") {
        options.set_type(&kind);
    }
    File::new_with_u8_array_sequence_and_options(&chunks, &name, &options)
        .map_err(|e| format!("{url}: the downloaded bytes cannot be made a file ({})", js::message(e)))
}
