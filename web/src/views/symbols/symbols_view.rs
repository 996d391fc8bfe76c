//! The Symbols panel: one row per DSO the recording names, most samples first, and
//! the button that gives the page a folder (a build directory, a sysroot).

use std::rc::Rc;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use pgolens_protocol::{DsoStatus, SymbolStatus};

use crate::components::opener::Opener;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub status: Option<Rc<SymbolStatus>>,
    pub opener: Opener,
}

#[function_component]
pub fn SymbolsPanel(props: &Props) -> Html {
    let on_folder = {
        let opener = props.opener.clone();
        Callback::from(move |e: Event| {
            if let Some(input) = e.target_dyn_into::<HtmlInputElement>() {
                opener.offer_picked_folder(input.files());
                input.set_value("");
            }
        })
    };
    let picker = html! {
        <label class="open-button" style="display:inline-block;margin:4px 0">
            {"Add a folder…"}
            <input type="file" webkitdirectory=true multiple=true aria-label="Add a folder of binaries"
                onchange={on_folder} />
        </label>
    };
    let Some(status) = &props.status else {
        return html! {
            <section class="symbols-panel" aria-label="Symbols" style="margin:4px 0 8px">
                <p class="muted">{"Loading the recording's DSOs…"}</p>
                {picker}
            </section>
        };
    };
    html! {
        <section class="symbols-panel" aria-label="Symbols" style="margin:4px 0 8px">
            <p class="muted" style="margin:2px 0">
                {"Frames are named from the binaries you give: drop them, or a folder (a build directory, a sysroot: matched by build id, debug files under .build-id/ included), and /proc/kallsyms for the kernel."}
            </p>
            {picker}
            if let Some(scan) = &status.folder {
                <span class="muted" style="margin-left:8px">
                    {format!("Last folder: {} files, {} ELF, {} read whole.", scan.files, scan.elf, scan.read)}
                </span>
            }
            if let Some(error) = &status.error {
                <p class="error" role="alert">{error}</p>
            }
            <table class="symbols-table" style="border-collapse:collapse;font-size:12px;margin-top:4px">
                <thead>
                    <tr>
                        <th scope="col" style="text-align:left;padding:2px 8px">{"DSO"}</th>
                        <th scope="col" style="text-align:left;padding:2px 8px">{"Build id"}</th>
                        <th scope="col" style="text-align:right;padding:2px 8px">{"Samples"}</th>
                        <th scope="col" style="text-align:left;padding:2px 8px">{"Named from"}</th>
                        <th scope="col" style="text-align:left;padding:2px 8px">{"Debug file"}</th>
                    </tr>
                </thead>
                <tbody>
                    { for status.dsos.iter().map(row) }
                </tbody>
            </table>
        </section>
    }
}

fn row(dso: &DsoStatus) -> Html {
    let cell = "padding:2px 8px";
    let missing = if dso.kernel { "missing: drop /proc/kallsyms" } else { "missing" };
    html! {
        <tr data-dso={dso.path.clone()} class={classes!(dso.matched.is_none().then_some("missing"))}>
            <td style={cell}><code>{&dso.path}</code></td>
            <td style={cell}><code>{dso.build_id.clone().unwrap_or_default()}</code></td>
            <td style="padding:2px 8px;text-align:right">{dso.samples}</td>
            <td style={cell} class="matched">
                {match &dso.matched {
                    Some(file) => html! { <code>{file}</code> },
                    None => html! { <span class="muted">{missing}</span> },
                }}
            </td>
            <td style={cell} class="debug"><code>{dso.debug.clone().unwrap_or_default()}</code></td>
        </tr>
    }
}
