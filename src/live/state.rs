//! The live page's state: a small reducer like the playground's ([`crate::state::State`]).
//! The model and the HTTP client sit in one shared cell, the page's tick drains the watch
//! streams into the informers, and every change bumps `version` so yew re-renders. The live
//! components read it from context ([`use_live`]); the page's layout is in [`super::app`].

use std::cell::RefCell;
use std::rc::Rc;

use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::clock::Timestamp;
use yew::prelude::*;

use super::frame::LiveFrame;
use super::model::LiveModel;
use crate::i18n::Lang;
use crate::state::Tool;
use crate::view::View;

/// What the live page drives: the model and the client it talks through.
pub struct LiveEngine {
    pub model: LiveModel,
    pub client: Box<dyn ApiClient>,
}

impl std::fmt::Debug for LiveEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveEngine")
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

/// The live page's state.
#[derive(Debug, Clone)]
pub struct LiveState {
    pub engine: Rc<RefCell<LiveEngine>>,
    /// The API base path (`""` = the origin's root).
    pub base: String,
    /// A `?live=` value that is not a same-origin path: nothing is requested.
    pub refused: Option<String>,
    pub lang: Lang,
    pub view: View,
    pub tool: Tool,
    /// The stream whose raw body is shown (`pods`, ...).
    pub raw: Option<&'static str>,
    /// What the views show, read from the model once after every change.
    pub frame: Rc<LiveFrame>,
    pub version: u64,
}

impl PartialEq for LiveState {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.engine, &other.engine) && self.version == other.version
    }
}

/// Everything the live page can ask for.
#[derive(Debug, Clone, PartialEq)]
pub enum LiveAction {
    /// A browser tick at this `performance.now()`.
    Tick(f64),
    SetLang(Lang),
    Show(View),
    ShowTool(Tool),
    Command(String),
    Interrupt,
    ClearConsole,
    ShowRaw(Option<&'static str>),
}

impl LiveState {
    pub fn new(client: Box<dyn ApiClient>, base: &str, lang: Lang) -> Self {
        LiveState {
            engine: Rc::new(RefCell::new(LiveEngine {
                model: LiveModel::new(),
                client,
            })),
            base: base.to_string(),
            refused: None,
            lang,
            view: View::default(),
            tool: Tool::default(),
            raw: Some("pods"),
            frame: Rc::default(),
            version: 0,
        }
        .with_frame()
    }

    /// The state with a fresh snapshot of the model for the views.
    fn with_frame(mut self) -> Self {
        let frame = {
            let e = self.engine.borrow();
            LiveFrame::of(&e.model, e.client.now_ms(), self.raw)
        };
        self.frame = Rc::new(frame);
        self
    }

    /// Runs one action on a copy of the small fields; `None` when nothing visible changed.
    pub fn apply(&self, action: LiveAction) -> Option<LiveState> {
        let mut next = self.clone();
        let changed = match action {
            LiveAction::Tick(real_ms) => {
                if self.refused.is_some() {
                    return None;
                }
                let mut e = self.engine.borrow_mut();
                let LiveEngine { model, client } = &mut *e;
                let now = if real_ms.is_finite() && real_ms > 0.0 {
                    real_ms as u64
                } else {
                    0
                };
                model.step(Timestamp::from_millis(now), client.as_mut())
            }
            LiveAction::SetLang(l) => {
                next.lang = l;
                true
            }
            LiveAction::Show(v) => {
                next.view = v;
                true
            }
            LiveAction::ShowTool(t) => {
                next.tool = t;
                true
            }
            LiveAction::Command(line) => {
                if self.refused.is_none() {
                    let mut e = self.engine.borrow_mut();
                    let LiveEngine { model, client } = &mut *e;
                    model.run_command(&line, client.as_mut());
                }
                next.tool = Tool::Console;
                true
            }
            LiveAction::Interrupt => {
                let mut e = self.engine.borrow_mut();
                let LiveEngine { model, client } = &mut *e;
                model.console.interrupt(client.as_mut());
                true
            }
            LiveAction::ClearConsole => {
                self.engine.borrow_mut().model.console.clear();
                true
            }
            LiveAction::ShowRaw(r) => {
                next.raw = r;
                true
            }
        };
        changed.then(|| {
            next.version += 1;
            next.with_frame()
        })
    }
}

impl Reducible for LiveState {
    type Action = LiveAction;

    fn reduce(self: Rc<Self>, action: LiveAction) -> Rc<Self> {
        match self.apply(action) {
            Some(next) => Rc::new(next),
            None => self,
        }
    }
}

/// The live page state as every live component receives it.
pub type LiveCtx = UseReducerHandle<LiveState>;

/// The state from context (the live app always provides it).
#[hook]
pub fn use_live() -> LiveCtx {
    match use_context::<LiveCtx>() {
        Some(c) => c,
        // Live components are only ever mounted under LiveApp's ContextProvider.
        None => std::process::abort(),
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use watchlab_apimachinery::client::{ApiResponse, WatchId};
    use watchlab_engine::cluster::Cluster;

    /// A cluster owned by the client, as the HTTP server owns its cluster.
    struct Owned(Rc<RefCell<Cluster>>);

    impl ApiClient for Owned {
        fn request(
            &mut self,
            method: &str,
            path: &str,
            content_type: Option<&str>,
            body: Option<&str>,
        ) -> ApiResponse {
            self.0
                .borrow_mut()
                .session("kubectl")
                .request(method, path, content_type, body)
        }
        fn watch(&mut self, path: &str) -> Result<WatchId, ApiResponse> {
            self.0.borrow_mut().session("kubectl").watch(path)
        }
        fn poll_watch(&mut self, id: WatchId) -> Option<Vec<String>> {
            self.0.borrow_mut().session("kubectl").poll_watch(id)
        }
        fn stop_watch(&mut self, id: WatchId) {
            self.0.borrow_mut().session("kubectl").stop_watch(id)
        }
        fn now_ms(&self) -> u64 {
            self.0.borrow().now().as_millis()
        }
    }

    #[test]
    fn ticks_fill_the_model_and_commands_reach_the_server() {
        let cluster = Rc::new(RefCell::new(Cluster::with_seed(7)));
        let s = LiveState::new(Box::new(Owned(cluster.clone())), "", Lang::En);
        let s = s
            .apply(LiveAction::Tick(100.0))
            .expect("first list changes the page");
        assert_eq!(s.engine.borrow().model.nodes().len(), 3);
        assert_eq!(s.apply(LiveAction::Tick(200.0)), None, "nothing new");
        let s = s
            .apply(LiveAction::Command("kubectl run web --image=nginx".into()))
            .expect("command");
        let s = s.apply(LiveAction::Tick(300.0)).expect("the pod arrives");
        assert!(s
            .engine
            .borrow()
            .model
            .pods()
            .iter()
            .any(|p| p.name == "web"));
        let s = s.apply(LiveAction::ShowRaw(None)).expect("raw");
        assert_eq!(s.raw, None);
    }

    #[test]
    fn a_refused_base_requests_nothing() {
        let cluster = Rc::new(RefCell::new(Cluster::with_seed(7)));
        let mut s = LiveState::new(Box::new(Owned(cluster.clone())), "", Lang::Zh);
        s.refused = Some("http://elsewhere".into());
        assert_eq!(s.apply(LiveAction::Tick(100.0)), None);
        let s = s
            .apply(LiveAction::Command("kubectl run web --image=nginx".into()))
            .expect("tool shown");
        assert!(cluster.borrow().pods().iter().all(|p| p.name != "web"));
        assert!(s.engine.borrow().model.console.lines().is_empty());
    }
}
