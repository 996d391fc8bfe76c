//! The BOLT Functions tab: the profile's functions as a sortable virtual table, and
//! a button that saves the profile as a file (fdata as perf2bolt writes it, or
//! YAML): a recording or pre-aggregated file becomes perf2bolt's fdata here.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::{Action, Doc};
use crate::components::download::save;
use crate::views::table::table_view::TableView;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn BoltFunctionsView(props: &Props) -> Html {
    let f = &props.doc.bolt_functions;
    let t = &f.table;
    {
        let dispatch = props.dispatch.clone();
        use_effect_with(f.exported.clone(), move |exported| {
            if let Some(file) = exported {
                let _ = save(&file.0, &file.1);
                dispatch.emit(Action::ExportSaved);
            }
        });
    }
    let count = match t.total {
        Some(n) => crate::views::count(n, "function"),
        None => String::from("loading…"),
    };
    let summary = props.doc.summary.as_ref();
    let yaml = summary.is_some_and(|s| s.format == "bolt-yaml");
    // A recording of a BOLTed binary also saves as perf2bolt -w's YAML (from BAT).
    let bat_yaml = !yaml && summary.is_some_and(|s| s.branch_profile);
    html! {
        <div class="functions bolt-functions">
            <div class="bolt-actions">
                if !yaml {
                    <button class="bolt-export" disabled={f.exporting} onclick={props.dispatch.reform(|_| Action::ExportBolt(false))}
                        title="The profile as perf2bolt writes fdata (translated to the input binary for a BOLTed one)">
                        {"Save fdata"}
                    </button>
                }
                if yaml || bat_yaml {
                    <button class="bolt-export" disabled={f.exporting} onclick={props.dispatch.reform(|_| Action::ExportBolt(true))}
                        title="The profile as YAML: as LLVM's writer writes a YAML profile, or as perf2bolt -w writes one from a BOLTed binary's BAT">
                        {"Save YAML"}
                    </button>
                }
            </div>
            <TableView table={t.clone()} on_msg={props.dispatch.reform(Action::BoltFunctions)} label="Functions"
                count={count} filter={true} />
        </div>
    }
}
