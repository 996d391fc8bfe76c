//! The tab list of a file's views (Dump now; flame graph, functions and CFG when the
//! format provides them).

use yew::prelude::*;

use crate::state::Tab;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub tabs: Vec<Tab>,
    pub current: Tab,
    pub on_tab: Callback<Tab>,
}

#[function_component]
pub fn Tabs(props: &Props) -> Html {
    html! {
        <div class="tabs" role="tablist" aria-label="Views">
            { for props.tabs.iter().map(|&tab| {
                let selected = tab == props.current;
                let onclick = props.on_tab.reform(move |_: MouseEvent| tab);
                html! {
                    <button role="tab" id={format!("tab-{}", tab.id())} aria-selected={selected.to_string()}
                        aria-controls={format!("panel-{}", tab.id())} tabindex={if selected { "0" } else { "-1" }}
                        class={classes!("tab", selected.then_some("current"))} {onclick}>
                        {tab.title()}
                    </button>
                }
            }) }
        </div>
    }
}
