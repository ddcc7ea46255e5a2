//! placeholder
use super::{Ctx, Done};
use crate::errors::CmdError;
pub(crate) fn run(_ctx: &mut Ctx, _args: &[String]) -> Result<Done, CmdError> {
    Err(CmdError::msg("not yet"))
}
