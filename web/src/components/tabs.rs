//! The tab list of a file's views, in the order the worker offers them.

use yew::prelude::*;

use pgolens_protocol::View as Tab;

use crate::views;

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
                    <button role="tab" id={format!("tab-{}", views::id(tab))} aria-selected={selected.to_string()}
                        aria-controls={format!("panel-{}", views::id(tab))} tabindex={if selected { "0" } else { "-1" }}
                        class={classes!("tab", selected.then_some("current"))} {onclick}>
                        {views::title_among(tab, &props.tabs)}
                    </button>
                }
            }) }
        </div>
    }
}
