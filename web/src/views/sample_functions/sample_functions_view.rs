//! The Functions tab of a sample profile: the downloads, the shared table, and the
//! selected function beside it (its line heat and its inline tree).

use std::rc::Rc;

use yew::prelude::*;

use pgolens_protocol::SampleExport;

use super::line_heat::SampleDetail;
use super::Msg;
use crate::app::{Action, Doc};
use crate::components::download::save;
use crate::views::table::table_view::TableView;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub doc: Rc<Doc>,
    pub dispatch: Callback<Action>,
}

/// A download's button text and what it writes.
fn export_label(to: SampleExport) -> (&'static str, &'static str) {
    match to {
        SampleExport::Text => ("Save LLVM text", "The profile as llvm-profdata merge --sample --text writes it"),
        SampleExport::Gcov4 => ("Save GCOV v4", "The profile as AutoFDO GCOV v4 (binary)"),
        SampleExport::Gcov4Compact => ("Save v4 compact", "The profile as AutoFDO GCOV v4, compact binary"),
        SampleExport::Gcov4Text => ("Save v4 text", "The profile as AutoFDO GCOV v4 text"),
    }
}

#[function_component]
pub fn SampleFunctionsView(props: &Props) -> Html {
    let f = &props.doc.sample_functions;
    let t = &f.table;
    let d = &props.dispatch;
    {
        let d = d.clone();
        use_effect_with(f.exported.clone(), move |exported| {
            if let Some(file) = exported {
                let _ = save(&file.0, &file.1);
                d.emit(Action::SampleFunctions(Msg::Saved));
            }
        });
    }
    let count = match (t.matching, t.total) {
        (Some(m), Some(t)) if m != t => format!("{m} of {t} functions"),
        (_, Some(t)) => crate::views::count(t, "function"),
        _ => String::from("loading…"),
    };
    let buttons = SampleExport::ALL.into_iter().map(|to| {
        let (label, title) = export_label(to);
        html! {
            <button class="sample-export" disabled={f.exporting.is_some()} {title}
                onclick={d.reform(move |_: MouseEvent| Action::SampleFunctions(Msg::Export(to)))}>{label}</button>
        }
    });
    html! {
        <div class="functions sample-functions">
            <div class="sample-actions">{ for buttons }</div>
            <TableView table={t.clone()} on_msg={d.reform(|m| Action::SampleFunctions(Msg::Table(m)))}
                label="Functions" count={count} />
            <SampleDetail doc={props.doc.clone()} dispatch={d.clone()} />
        </div>
    }
}
