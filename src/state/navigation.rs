//! Where the learner is on the page: which tool panel is open beside the views (the views
//! themselves are [`crate::view::View`], since scenarios switch them).

/// The panel shown beside the views.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tool {
    #[default]
    Console,
    Actions,
    Scenarios,
    Editor,
}

impl Tool {
    pub const ALL: [Tool; 4] = [Tool::Console, Tool::Actions, Tool::Scenarios, Tool::Editor];

    /// The tool's tab label.
    pub fn label(self) -> crate::i18n::T {
        use crate::i18n::T;
        match self {
            Tool::Console => T::TabConsole,
            Tool::Actions => T::TabActions,
            Tool::Scenarios => T::TabScenarios,
            Tool::Editor => T::TabEditor,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Tool::Console => "console",
            Tool::Actions => "actions",
            Tool::Scenarios => "scenarios",
            Tool::Editor => "editor",
        }
    }
}
