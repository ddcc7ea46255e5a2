//! What one request carries through the API server besides its object: who it is by, the
//! options its query set (`fieldManager`, `fieldValidation`, `dryRun`) and the warnings it earns on the
//! way. kube-apiserver's handlers build a `context.Context` per request (the user from
//! authentication, the request's options decoded by the handler, `warning.WithWarningRecorder`
//! collecting what `warning.AddWarning` records) and pass it down to `rest.Creater.Create`,
//! `rest.Updater.Update` and `rest.Patcher`; this is that context. One is built per request (by
//! the HTTP edge from the query, or by the typed face from a bare user agent), so nothing one
//! request sets can reach the next one.

use super::field_manager;
use std::borrow::Cow;
use watchlab_apimachinery::request::{FieldValidation, Query};

/// One request's context: its user agent, its per-request options and its warning recorder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestContext<'a> {
    /// The user agent the request is made as (`kubectl`, `kubelet/node-a`): ledger lines name
    /// it, and its product is the field manager when the request names none.
    user: &'a str,
    /// The request's `fieldManager` (`kubectl-create`), the manager its writes are recorded
    /// for in `managedFields`; `None` records the user agent's
    /// ([`field_manager::manager_of`]), as the handlers' `managerOrUserAgent` fills it in.
    field_manager: Option<String>,
    /// The request's `fieldValidation`: what unknown or duplicate fields in a PATCH's result
    /// cost. The engine's own typed writes have no JSON to check: `Ignore`.
    field_validation: FieldValidation,
    /// The request's `dryRun=All`: the whole request runs (admission, defaults, validation,
    /// the resourceVersion precondition, managedFields, apply's conflicts) and the storage
    /// write is skipped, as `DryRunnableStorage` skips it (`registry/generic/registry/dryrun.go`).
    dry_run: bool,
    /// The warnings recorded so far (`unknown field "spec.foo"`), each one `Warning: 299 - "…"`
    /// header of the answer (`warning.AddWarning` into the request's recorder).
    warnings: Vec<String>,
}

impl<'a> RequestContext<'a> {
    /// The context of a request by `user` with no options: the user agent's manager, no field
    /// validation (the typed face's `create`, `update`...: controllers' writes).
    pub fn new(user: &'a str) -> Self {
        RequestContext {
            user,
            field_manager: None,
            field_validation: FieldValidation::Ignore,
            dry_run: false,
            warnings: Vec::new(),
        }
    }

    /// This context with its writes recorded for `manager` (`?fieldManager=`).
    pub fn with_field_manager(mut self, manager: Option<String>) -> Self {
        self.field_manager = manager;
        self
    }

    /// This context with `validation` as its `?fieldValidation=`.
    pub fn with_field_validation(mut self, validation: FieldValidation) -> Self {
        self.field_validation = validation;
        self
    }

    /// This context as a `?dryRun=All` request (`dry_run`) or not.
    pub fn with_dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// Takes the options `query` carries (`fieldManager`, `fieldValidation`, `dryRun`), as the
    /// handler decodes `metav1.CreateOptions` / `UpdateOptions` / `PatchOptions` /
    /// `DeleteOptions` from the URL.
    pub fn set_options(&mut self, query: &Query) {
        self.field_manager.clone_from(&query.field_manager);
        self.field_validation = query.field_validation;
        self.dry_run = query.dry_run;
    }

    /// The user agent the request is made as.
    pub fn user(&self) -> &'a str {
        self.user
    }

    /// The `fieldManager` the request named, if any.
    pub fn field_manager(&self) -> Option<&str> {
        self.field_manager.as_deref()
    }

    /// The manager the request's writes are recorded for: its `fieldManager`, else the user
    /// agent's ([`field_manager::manager_of`]).
    pub fn manager(&self) -> Cow<'_, str> {
        match &self.field_manager {
            Some(m) => Cow::Borrowed(m.as_str()),
            None => field_manager::manager_of(self.user),
        }
    }

    /// The request's `fieldValidation`.
    pub fn field_validation(&self) -> FieldValidation {
        self.field_validation
    }

    /// Whether the request is a dry run (`?dryRun=All`): nothing it does may be stored.
    pub fn dry_run(&self) -> bool {
        self.dry_run
    }

    /// Records a warning for the answer (`warning.AddWarning`).
    pub fn warn(&mut self, text: String) {
        self.warnings.push(text);
    }

    /// Records each of `texts` (a body's unknown fields, one warning each).
    pub fn warn_all(&mut self, texts: impl IntoIterator<Item = String>) {
        self.warnings.extend(texts);
    }

    /// The warnings recorded so far, in order.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The warnings the request earned, for its answer's `Warning` headers.
    pub fn into_warnings(self) -> Vec<String> {
        self.warnings
    }

    /// The context of a write the server makes by `user` while serving this request (the
    /// apiextensions status write that establishes a definition just written): the request's
    /// options, a recorder of its own.
    pub(super) fn on_behalf_of<'b>(&self, user: &'b str) -> RequestContext<'b> {
        RequestContext {
            user,
            field_manager: self.field_manager.clone(),
            field_validation: self.field_validation,
            dry_run: self.dry_run,
            warnings: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manager_is_the_requests_else_the_user_agents() {
        let ctx = RequestContext::new("kubelet/node-a");
        assert_eq!(ctx.manager(), "kubelet");
        assert_eq!(ctx.field_manager(), None);
        let ctx = ctx.with_field_manager(Some("kubectl-edit".into()));
        assert_eq!(ctx.manager(), "kubectl-edit");
        assert_eq!(ctx.user(), "kubelet/node-a");
    }

    #[test]
    fn options_come_from_the_query_and_replace_earlier_ones() {
        let mut ctx = RequestContext::new("kubectl").with_field_manager(Some("old".into()));
        let (_, query) = watchlab_apimachinery::request::parse_request(
            "PATCH",
            "/api/v1/namespaces/default/pods/web?fieldValidation=Strict&dryRun=All",
        )
        .unwrap();
        ctx.set_options(&query);
        assert_eq!(ctx.field_manager(), None);
        assert_eq!(ctx.field_validation(), FieldValidation::Strict);
        assert!(ctx.dry_run());
        assert!(ctx.on_behalf_of("apiextensions-apiserver").dry_run());
        let (_, query) = watchlab_apimachinery::request::parse_request(
            "DELETE",
            "/api/v1/namespaces/default/pods/web",
        )
        .unwrap();
        ctx.set_options(&query);
        assert!(!ctx.dry_run());
    }

    #[test]
    fn warnings_stay_with_their_request() {
        let mut ctx = RequestContext::new("kubectl").with_field_manager(Some("x".into()));
        ctx.warn("unknown field \"spec.foo\"".into());
        let nested = ctx.on_behalf_of("apiextensions-apiserver");
        assert!(nested.warnings().is_empty());
        assert_eq!(nested.manager(), "x");
        assert_eq!(ctx.into_warnings(), ["unknown field \"spec.foo\""]);
    }
}
