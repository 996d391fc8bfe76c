//! The details panel beside a flame graph: the selected function's name, DSO and
//! kind, its self and total weight in the graph (with their share of it), and its
//! immediate callers and callees with their shares (rows of its sandwich); buttons
//! open its sandwich or the call tree.

use std::rc::Rc;

use pgolens_protocol::View;
use yew::prelude::*;

use super::navigate::{inlined_into, neighbours};
use super::{FlameData, FrameLookup, FrameNames, Msg, SandwichView};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub frame: u32,
    pub flame: Rc<FlameData>,
    pub names: Option<Rc<FrameNames>>,
    pub inverted: bool,
    /// The function's sandwich layouts (for its callers and callees), when asked.
    pub sandwich: Option<SandwichView>,
    pub on_msg: Callback<Msg>,
    /// Where the Call tree button goes; none: no button.
    pub on_tab: Option<Callback<View>>,
}

/// `part` as a percentage of `whole`, two decimals, as perf report prints them.
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return String::from("0.00%");
    }
    format!("{:.2}%", part as f64 * 100.0 / whole as f64)
}

#[function_component]
pub fn Details(props: &Props) -> Html {
    let frame = props.frame;
    let d = &props.on_msg;
    let weights = {
        let (flame, inverted) = (props.flame.clone(), props.inverted);
        use_memo((Rc::as_ptr(&props.flame) as usize, frame, inverted), move |_| flame.weights(frame, inverted))
    };
    let all = props.flame.total();
    let names = props.names.as_deref();
    let name = names.map_or_else(|| format!("frame {frame}"), |n| n.name(frame).to_string());
    let dso = names.and_then(|n| n.dso(frame)).unwrap_or("—").to_string();
    let raw = names.map_or("", |n| n.raw(frame)).to_string();
    let source = names.map_or("", |n| n.source(frame)).to_string();
    let kind = names.map_or("", |n| n.kind(frame));
    let kind = match kind {
        // The functions whose code holds it (callers are below in the flame graph,
        // not in the icicle, whose rows run from the leaves).
        "inlined" if !props.inverted => {
            let is_inlined = |f: u32| names.is_some_and(|n| n.kind(f) == "inlined");
            let into: Vec<String> = inlined_into(&props.flame, frame, is_inlined)
                .into_iter()
                .map(|(f, _)| names.map_or_else(|| format!("frame {f}"), |n| n.name(f).to_string()))
                .collect();
            if into.is_empty() {
                String::from("inlined")
            } else {
                format!("inlined into {}", into.join(", "))
            }
        }
        "inlined" => String::from("inlined"),
        "" | "user" => String::from("not inlined"),
        other => format!("not inlined ({other})"),
    };
    let list = |graph: Option<&Rc<FlameData>>, class: &'static str, title: &'static str| -> Html {
        let Some(graph) = graph else {
            return html! { <section class={class}><h4>{title}</h4><p class="muted">{"…"}</p></section> };
        };
        let (whole, rows) = neighbours(graph, frame);
        let empty = rows.is_empty();
        let rows = rows.into_iter().map(|(f, w)| {
            let label = names.map_or_else(|| format!("frame {f}"), |n| n.name(f).to_string());
            let (label, onclick) = if f == u32::MAX {
                (String::from("(no caller: a stack's root)"), None)
            } else {
                (label, Some(d.reform(move |_: MouseEvent| Msg::SelectFrame(Some(f)))))
            };
            html! {
                <tr data-frame={f.to_string()}>
                    <td class="fd-fn mono">
                        if let Some(onclick) = onclick { <button class="link" title={label.clone()} {onclick}>{&label}</button> } else { {label} }
                    </td>
                    <td class="num">{w.to_string()}</td>
                    <td class="num fd-share">{percent(w, whole)}</td>
                </tr>
            }
        });
        let none = if title == "Callers" { "none (a root)" } else { "none (a leaf)" };
        html! {
            <section class={class}>
                <h4>{title}</h4>
                if empty {
                    <p class="muted">{none}</p>
                } else {
                    <table><tbody>{ for rows }</tbody></table>
                }
            </section>
        }
    };
    let sandwich = props.sandwich.as_ref().filter(|s| s.frame == frame);
    let on_sandwich = d.reform(move |_: MouseEvent| Msg::ShowSandwich(Some(frame)));
    let call_tree = props.on_tab.clone().map(|t| t.reform(|_: MouseEvent| View::CallTree));
    html! {
        <aside class="flame-details" aria-label="Selected function" data-frame={frame.to_string()}>
            <h3 class="fd-name mono" title={name.clone()}>{&name}</h3>
            <dl>
                if !raw.is_empty() { <dt>{"Raw name"}</dt><dd class="fd-raw mono" title={raw.clone()}>{&raw}</dd> }
                <dt>{"DSO"}</dt><dd class="fd-dso mono">{dso}</dd>
                if !source.is_empty() { <dt>{"Source"}</dt><dd class="fd-source mono" title={source.clone()}>{&source}</dd> }
                <dt>{"Kind"}</dt><dd class="fd-kind">{kind}</dd>
                <dt>{"Self"}</dt>
                <dd class="fd-self"><span class="num">{weights.self_weight.to_string()}</span>{" "}<span class="fd-pct">{percent(weights.self_weight, all)}</span></dd>
                <dt>{"Total"}</dt>
                <dd class="fd-total"><span class="num">{weights.total.to_string()}</span>{" "}<span class="fd-pct">{percent(weights.total, all)}</span></dd>
            </dl>
            {list(sandwich.and_then(|s| s.callers.as_ref()), "fd-callers", "Callers")}
            {list(sandwich.and_then(|s| s.callees.as_ref()), "fd-callees", "Callees")}
            <div class="fd-buttons">
                <button class="fd-sandwich" onclick={on_sandwich}>{"Sandwich "}<kbd>{"s"}</kbd></button>
                if let Some(onclick) = call_tree { <button class="fd-call-tree" {onclick}>{"Call tree"}</button> }
            </div>
        </aside>
    }
}
