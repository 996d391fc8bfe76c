//! The decoding worker as the app sees it: posting requests, and turning the worker's
//! messages (see `web/worker/worker.js` for the protocol) into reducer actions.
//!
//! Files are posted as `File` handles (structured clone does not copy their contents)
//! and the demo's `ArrayBuffer` is transferred, so the page never holds profile bytes
//! beyond the small windows the hex pane shows.

use js_sys::{Array, Float64Array, Object, Reflect, Uint32Array, Uint8Array};
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};
use yew::Callback;

use crate::state::{
    Action, CutoffEntry, DocId, FnColumn, FnDetail, FnQuery, FnRow, FnSite, FnTarget, FnTrace, MemColumn, MemFrame,
    MemRow, MemSite, NodeInfo, ProfileSummary, Request, Summary,
};
use crate::state::{
    FlameData, Found, FrameNames, SampleFilter, StackColumn, StackFnQuery, StackFnRow, StacksInfo, TimelineData,
};

/// Where the build puts the worker's module, relative to the page.
const WORKER_URL: &str = "./worker/worker.js";

pub struct Bridge {
    worker: Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
}

impl Bridge {
    pub fn new(dispatch: Callback<Action>) -> Result<Bridge, JsValue> {
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options(WORKER_URL, &options)?;
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            if let Some(action) = decode(&event.data()) {
                dispatch.emit(action);
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Ok(Bridge { worker, _on_message: on_message })
    }

    /// Hands a `File` to the worker (by handle, not by copy).
    pub fn open_file(&self, id: DocId, file: &web_sys::File) -> Result<(), JsValue> {
        let msg = message("open", id, &[("name", file.name().into()), ("file", file.into())])?;
        self.worker.post_message(&msg)
    }

    /// Hands an `ArrayBuffer` to the worker, transferring it: it is detached here.
    pub fn open_buffer(&self, id: DocId, name: &str, buffer: &js_sys::ArrayBuffer) -> Result<(), JsValue> {
        let msg = message("open", id, &[("name", name.into()), ("file", buffer.into())])?;
        self.worker.post_message_with_transfer(&msg, &Array::of1(buffer))
    }

    pub fn post(&self, request: &Request) -> Result<(), JsValue> {
        let msg = match request {
            Request::Children { doc, req, path } => {
                let path: Array = path.iter().map(|&i| JsValue::from(i)).collect();
                message("children", *doc, &[("req", num(*req)), ("path", path.into())])?
            }
            Request::Bytes { doc, req, start, end } => {
                message("bytes", *doc, &[("req", num(*req)), ("start", num(*start)), ("end", num(*end))])?
            }
            Request::PathTo { doc, req, offset } => {
                message("path_to", *doc, &[("req", num(*req)), ("offset", num(*offset))])?
            }
            Request::Functions { doc, req, query, start, count } => message(
                "functions",
                *doc,
                &[
                    ("req", num(*req)),
                    ("column", query.column.id().into()),
                    ("descending", query.descending.into()),
                    ("filter", query.filter.as_str().into()),
                    ("start", num(*start)),
                    ("count", num(*count)),
                ],
            )?,
            Request::Summary { doc, req } => message("summary", *doc, &[("req", num(*req))])?,
            Request::Function { doc, req, row } => {
                message("function", *doc, &[("req", num(*req)), ("row", (*row).into())])?
            }
            Request::MemProf { doc, req, column, descending, start, count } => message(
                "memprof",
                *doc,
                &[
                    ("req", num(*req)),
                    ("column", column.id().into()),
                    ("descending", (*descending).into()),
                    ("start", num(*start)),
                    ("count", num(*count)),
                ],
            )?,
            Request::MemProfSite { doc, req, site } => {
                message("memprof_site", *doc, &[("req", num(*req)), ("site", (*site).into())])?
            }
            Request::Correlate { doc, req, binary } => {
                message("correlate", *doc, &[("req", num(*req)), ("binary", (*binary).into())])?
            }
            Request::Flame { doc, req, samples, inverted } => message(
                "flame",
                *doc,
                &[("req", num(*req)), ("inverted", (*inverted).into()), ("event", samples.event.into())],
            )
            .and_then(|m| with_times(m, samples))?,
            Request::Sandwich { doc, req, samples, frame } => message(
                "sandwich",
                *doc,
                &[("req", num(*req)), ("frame", (*frame).into()), ("event", samples.event.into())],
            )
            .and_then(|m| with_times(m, samples))?,
            Request::Symbolize { doc, req, binaries } => {
                let binaries: Array = binaries.iter().map(|&b| JsValue::from(b)).collect();
                message("symbolize", *doc, &[("req", num(*req)), ("binaries", binaries.into())])?
            }
            Request::FrameNames { doc, req } => message("frame_names", *doc, &[("req", num(*req))])?,
            Request::StackFunctions { doc, req, query, start, count } => message(
                "stack_functions",
                *doc,
                &[
                    ("req", num(*req)),
                    ("event", query.samples.event.into()),
                    ("column", query.column.id().into()),
                    ("descending", query.descending.into()),
                    ("filter", query.filter.as_str().into()),
                    ("start", num(*start)),
                    ("count", num(*count)),
                ],
            )
            .and_then(|m| with_times(m, &query.samples))?,
            Request::Search { doc, req, samples, pattern } => message(
                "search",
                *doc,
                &[("req", num(*req)), ("event", samples.event.into()), ("pattern", pattern.as_str().into())],
            )
            .and_then(|m| with_times(m, samples))?,
            Request::Timeline { doc, req, event, bins } => {
                message("timeline", *doc, &[("req", num(*req)), ("event", (*event).into()), ("bins", (*bins).into())])?
            }
            Request::Close { doc } => message("close", *doc, &[])?,
        };
        self.worker.post_message(&msg)
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.terminate();
    }
}

fn message(kind: &str, id: DocId, fields: &[(&str, JsValue)]) -> Result<JsValue, JsValue> {
    let msg = Object::new();
    Reflect::set(&msg, &"type".into(), &kind.into())?;
    Reflect::set(&msg, &"id".into(), &id.into())?;
    for (key, value) in fields {
        Reflect::set(&msg, &(*key).into(), value)?;
    }
    Ok(msg.into())
}

/// Adds `t0` and `t1` (a time range, or -1 and -1 for all samples).
fn with_times(msg: JsValue, samples: &SampleFilter) -> Result<JsValue, JsValue> {
    let (t0, t1) = samples.times();
    Reflect::set(&msg, &"t0".into(), &t0.into())?;
    Reflect::set(&msg, &"t1".into(), &t1.into())?;
    Ok(msg)
}

/// The sample filter a reply was computed for (its `event`, `t0`, `t1`).
fn samples(msg: &JsValue) -> SampleFilter {
    let t = |k| get(msg, k).as_f64().unwrap_or(-1.0);
    let (t0, t1) = (t("t0"), t("t1"));
    SampleFilter {
        event: get_u64(msg, "event").unwrap_or(0) as u32,
        range: (t0 >= 0.0 && t0 < t1).then_some((t0 as u64, t1 as u64)),
    }
}

fn flame_data(obj: &JsValue) -> Option<FlameData> {
    let rects = get(obj, "rects").dyn_into::<Float64Array>().ok()?.to_vec();
    let rows = get(obj, "rows").dyn_into::<Uint32Array>().ok()?.to_vec();
    Some(FlameData::from_arrays(&rects, rows))
}

fn stacks_info(obj: &JsValue) -> Option<StacksInfo> {
    if obj.is_null() || obj.is_undefined() {
        return None;
    }
    Some(StacksInfo {
        events: get_array(obj, "events").iter().filter_map(|v| v.as_string()).collect(),
        frames: get_u64(obj, "frames").unwrap_or(0),
        samples: get_u64(obj, "samples").unwrap_or(0),
        start: get_u64(obj, "start").unwrap_or(0),
        end: get_u64(obj, "end").unwrap_or(0),
    })
}

fn strings(obj: &JsValue, key: &str) -> Vec<String> {
    get_array(obj, key).iter().map(|v| v.as_string().unwrap_or_default()).collect()
}

/// Offsets and request numbers travel as JS numbers (exact below 2^53).
fn num(n: u64) -> JsValue {
    JsValue::from_f64(n as f64)
}

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

fn get_u64(obj: &JsValue, key: &str) -> Option<u64> {
    get(obj, key).as_f64().filter(|n| *n >= 0.0).map(|n| n as u64)
}

/// Counts travel as decimal strings (exact past 2^53).
fn get_count(obj: &JsValue, key: &str) -> Option<u64> {
    get_string(obj, key)?.parse().ok()
}

fn get_string(obj: &JsValue, key: &str) -> Option<String> {
    get(obj, key).as_string()
}

fn get_array(obj: &JsValue, key: &str) -> Array {
    get(obj, key).dyn_into::<Array>().unwrap_or_default()
}

fn path(obj: &JsValue, key: &str) -> Vec<u32> {
    get_array(obj, key).iter().filter_map(|v| v.as_f64()).map(|n| n as u32).collect()
}

fn node(obj: &JsValue) -> Option<NodeInfo> {
    Some(NodeInfo {
        label: get_string(obj, "label")?,
        value: get_string(obj, "value"),
        start: get_u64(obj, "start")?,
        end: get_u64(obj, "end")?,
        has_children: get(obj, "deferred").is_truthy() || get_u64(obj, "kids").is_some_and(|k| k > 0),
    })
}

fn nodes(list: &Array) -> Vec<NodeInfo> {
    list.iter().filter_map(|n| node(&n)).collect()
}

fn fn_row(obj: &JsValue) -> Option<FnRow> {
    Some(FnRow {
        id: u32::try_from(get_u64(obj, "id")?).ok()?,
        name: get_string(obj, "name")?,
        demangled: get_string(obj, "demangled"),
        cs: get(obj, "cs").is_truthy(),
        hash: get_string(obj, "hash"),
        counters: get_count(obj, "counters"),
        entry: get_count(obj, "entry"),
        max: get_count(obj, "max"),
        total: get_count(obj, "total"),
        nonzero_ppm: get(obj, "nonzero").as_f64().map(|share| (share * 1e6).round() as u32),
    })
}

fn profile_summary(obj: &JsValue) -> Option<ProfileSummary> {
    if obj.is_null() || obj.is_undefined() {
        return None;
    }
    Some(ProfileSummary {
        functions: get_count(obj, "functions")?,
        counts: get_count(obj, "counts")?,
        total: get_string(obj, "total")?.parse().ok()?,
        max_count: get_count(obj, "maxCount")?,
        max_function: get_count(obj, "maxFunction")?,
        max_internal: get_count(obj, "maxInternal")?,
        detailed: get_array(obj, "detailed")
            .iter()
            .filter_map(|e| {
                Some(CutoffEntry {
                    cutoff: u32::try_from(get_u64(&e, "cutoff")?).ok()?,
                    min_count: get_count(&e, "min")?,
                    num_counts: get_count(&e, "counts")?,
                })
            })
            .collect(),
    })
}

fn fn_detail(obj: &JsValue) -> Option<FnDetail> {
    Some(FnDetail {
        id: u32::try_from(get_u64(obj, "id")?).ok()?,
        name: get_string(obj, "name")?,
        demangled: get_string(obj, "demangled"),
        hash: get_string(obj, "hash"),
        counters: get_array(obj, "counters").iter().filter_map(|c| c.as_string()?.parse().ok()).collect(),
        bitmap: get_array(obj, "bitmap").iter().filter_map(|b| b.as_f64()).map(|b| b as u8).collect(),
        sites: get_array(obj, "sites")
            .iter()
            .map(|site| FnSite {
                kind: get_string(&site, "kind").unwrap_or_default(),
                index: get_u64(&site, "index").unwrap_or(0) as u32,
                targets: get_array(&site, "targets")
                    .iter()
                    .map(|t| {
                        let name = get_string(&t, "name");
                        let label = get_string(&t, "demangled")
                            .or_else(|| name.clone())
                            .or_else(|| get_string(&t, "value"))
                            .unwrap_or_default();
                        FnTarget { label, name, count: get_count(&t, "count").unwrap_or(0) }
                    })
                    .collect(),
            })
            .collect(),
        traces: get_array(obj, "traces")
            .iter()
            .map(|t| FnTrace {
                trace: get_u64(&t, "trace").unwrap_or(0) as u32,
                weight: get_count(&t, "weight").unwrap_or(0),
                position: get_u64(&t, "position").unwrap_or(0),
                length: get_u64(&t, "length").unwrap_or(0),
            })
            .collect(),
    })
}

fn mem_row(obj: &JsValue) -> Option<MemRow> {
    Some(MemRow {
        id: u32::try_from(get_u64(obj, "id")?).ok()?,
        guid: get_string(obj, "guid"),
        name: get_string(obj, "name"),
        demangled: get_string(obj, "demangled"),
        leaf: get_string(obj, "leaf"),
        metrics: MemColumn::ALL.iter().map(|c| get_count(obj, c.id())).collect(),
    })
}

fn mem_site(obj: &JsValue) -> Option<MemSite> {
    Some(MemSite {
        id: u32::try_from(get_u64(obj, "id")?).ok()?,
        guid: get_string(obj, "guid"),
        name: get_string(obj, "name"),
        demangled: get_string(obj, "demangled"),
        frames: get_array(obj, "frames")
            .iter()
            .map(|f| MemFrame {
                guid: get_string(&f, "guid"),
                name: get_string(&f, "name"),
                demangled: get_string(&f, "demangled"),
                line: get_u64(&f, "line").unwrap_or(0) as u32,
                column: get_u64(&f, "column").unwrap_or(0) as u32,
                inline: get(&f, "inline").is_truthy(),
                address: get_string(&f, "address"),
                build_id: get_string(&f, "buildId"),
                module_offset: get_string(&f, "moduleOffset"),
            })
            .collect(),
        fields: get_array(obj, "fields")
            .iter()
            .filter_map(|pair| {
                let pair: Array = pair.dyn_into().ok()?;
                Some((pair.get(0).as_string()?, pair.get(1).as_string()?.parse().ok()?))
            })
            .collect(),
        histogram: get_array(obj, "histogram").iter().filter_map(|c| c.as_string()?.parse().ok()).collect(),
    })
}

/// One worker message as a reducer action; `None` for anything malformed.
fn decode(msg: &JsValue) -> Option<Action> {
    let doc = u32::try_from(get_u64(msg, "id")?).ok()?;
    let req = get_u64(msg, "req");
    Some(match get_string(msg, "type")?.as_str() {
        "progress" => Action::Progress {
            doc,
            loaded: get_u64(msg, "loaded").unwrap_or(0),
            total: get_u64(msg, "total").unwrap_or(0),
            decoding: get_string(msg, "phase").as_deref() == Some("decode"),
        },
        "opened" => {
            let s = get(msg, "summary");
            let summary = Summary {
                name: get_string(&s, "name").unwrap_or_default(),
                format: get_string(&s, "format")?,
                detection: get_string(&s, "detection").unwrap_or_default(),
                version: get_u64(&s, "version"),
                size: get_u64(&s, "size").unwrap_or(0),
                file_size: get_u64(&s, "fileSize").unwrap_or(0),
                views: get_array(&s, "views").iter().filter_map(|v| v.as_string()).collect(),
                views_error: get_string(&s, "viewsError"),
                correlated_with: None,
                stacks: stacks_info(&get(&s, "stacks")),
            };
            let root = node(&get(msg, "root"))?;
            Action::Opened { doc, summary, root, children: nodes(&get_array(msg, "children")) }
        }
        "children" => {
            Action::ChildrenLoaded { doc, req: req?, path: path(msg, "path"), nodes: nodes(&get_array(msg, "nodes")) }
        }
        "path" => Action::PathFound {
            doc,
            offset: get_u64(msg, "offset")?,
            path: path(msg, "path"),
            levels: get_array(msg, "levels").iter().map(|l| nodes(&l.unchecked_into())).collect(),
        },
        "bytes" => Action::BytesLoaded {
            doc,
            start: get_u64(msg, "start")?,
            data: get(msg, "bytes").dyn_into::<Uint8Array>().ok()?.to_vec(),
        },
        "functions" => Action::FunctionsLoaded {
            doc,
            query: FnQuery {
                column: FnColumn::ALL.into_iter().find(|c| get_string(msg, "column").as_deref() == Some(c.id()))?,
                descending: get(msg, "descending").is_truthy(),
                filter: get_string(msg, "filter").unwrap_or_default(),
            },
            total: get_u64(msg, "total")?,
            matching: get_u64(msg, "matching")?,
            start: get_u64(msg, "start")?,
            rows: get_array(msg, "rows").iter().filter_map(|r| fn_row(&r)).collect(),
        },
        "summary" => Action::SummaryLoaded {
            doc,
            summary: profile_summary(&get(msg, "summary"))?,
            cs_summary: profile_summary(&get(msg, "csSummary")),
        },
        "function" => Action::FunctionLoaded { doc, detail: fn_detail(&get(msg, "detail"))? },
        "memprof" => Action::MemProfLoaded {
            doc,
            column: MemColumn::from_id(&get_string(msg, "column")?)?,
            descending: get(msg, "descending").is_truthy(),
            total: get_u64(msg, "total")?,
            start: get_u64(msg, "start")?,
            raw: get(msg, "raw").is_truthy(),
            columns: get_array(msg, "columns").iter().filter_map(|c| MemColumn::from_id(&c.as_string()?)).collect(),
            rows: get_array(msg, "rows").iter().filter_map(|r| mem_row(&r)).collect(),
        },
        "correlated" => Action::Correlated {
            doc,
            binary_name: get_string(msg, "correlatedWith")?,
            views: get_array(msg, "views").iter().filter_map(|v| v.as_string()).collect(),
        },
        "memprof_site" => Action::MemProfSiteLoaded { doc, site: mem_site(&get(msg, "site"))? },
        "flame" => Action::FlameLoaded {
            doc,
            samples: samples(msg),
            inverted: get(msg, "inverted").is_truthy(),
            data: flame_data(msg)?,
        },
        "sandwich" => Action::SandwichLoaded {
            doc,
            samples: samples(msg),
            frame: get_u64(msg, "frame")? as u32,
            callers: flame_data(&get(msg, "callers"))?,
            callees: flame_data(&get(msg, "callees"))?,
        },
        "symbolized" => {
            Action::Symbolized { doc, stacks: stacks_info(&get(msg, "stacks"))?, with: strings(msg, "symbolizedWith") }
        }
        "frame_names" => Action::FrameNamesLoaded {
            doc,
            names: FrameNames {
                names: strings(msg, "names"),
                dsos: strings(msg, "dsos"),
                dso: get_array(msg, "dso").iter().map(|v| v.as_f64().unwrap_or(-1.0) as i64).collect(),
                kinds: strings(msg, "kinds"),
            },
        },
        "stack_functions" => Action::StackFunctionsLoaded {
            doc,
            query: StackFnQuery {
                column: StackColumn::ALL.into_iter().find(|c| get_string(msg, "column").as_deref() == Some(c.id()))?,
                descending: get(msg, "descending").is_truthy(),
                filter: get_string(msg, "filter").unwrap_or_default(),
                samples: samples(msg),
            },
            total: get_u64(msg, "total")?,
            matching: get_u64(msg, "matching")?,
            weight: get_count(msg, "weight").unwrap_or(0),
            start: get_u64(msg, "start")?,
            rows: get_array(msg, "rows")
                .iter()
                .filter_map(|r| {
                    Some(StackFnRow {
                        frame: get_u64(&r, "frame")? as u32,
                        name: get_string(&r, "name")?,
                        dso: get_string(&r, "dso"),
                        self_weight: get_count(&r, "self")?,
                        total: get_count(&r, "total")?,
                    })
                })
                .collect(),
        },
        "search" => {
            let frames: Vec<usize> =
                get_array(msg, "frames").iter().filter_map(|f| f.as_f64()).map(|f| f as usize).collect();
            let mut hit = vec![false; frames.iter().max().map_or(0, |m| m + 1)];
            for f in frames {
                hit[f] = true;
            }
            Action::SearchLoaded {
                doc,
                found: Found {
                    pattern: get_string(msg, "pattern").unwrap_or_default(),
                    samples: samples(msg),
                    hit,
                    weight: get_count(msg, "weight").unwrap_or(0),
                    total: get_count(msg, "total").unwrap_or(0),
                },
            }
        }
        "timeline" => Action::TimelineLoaded {
            doc,
            data: TimelineData {
                event: get_u64(msg, "event").unwrap_or(0) as u32,
                start: get_u64(msg, "start").unwrap_or(0),
                end: get_u64(msg, "end").unwrap_or(0),
                bins: get_array(msg, "bins").iter().filter_map(|b| b.as_f64()).map(|b| b as u64).collect(),
            },
        },
        "error" => {
            let message = get_string(msg, "message").unwrap_or_else(|| String::from("unknown error"));
            match req {
                Some(req) => Action::RequestFailed { doc, req, message },
                None => Action::OpenFailed { doc, message },
            }
        }
        _ => return None,
    })
}
