//! kubectl's table layout: Go's text/tabwriter as configured by cli-runtime (min width 6,
//! padding 3, pad with spaces) in the liggitt/tabwriter fork with `RememberWidths`, so a
//! `get -w` stream keeps every column at least as wide as anything printed before it.

/// Minimum cell width including padding (cli-runtime's `tabwriterMinWidth`).
const MIN_WIDTH: usize = 6;
/// Spaces added after the widest cell (cli-runtime's `tabwriterPadding`).
const PADDING: usize = 3;

/// A tab writer that remembers column widths across flushes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TabWriter {
    widths: Vec<usize>,
}

impl TabWriter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Lays out one flush worth of rows. Every cell but a row's last is padded to its column's
    /// width; each row ends with a newline.
    pub fn render(&mut self, rows: &[Vec<String>]) -> String {
        for row in rows {
            let padded = row.len().saturating_sub(1);
            for (i, cell) in row.iter().take(padded).enumerate() {
                let w = (cell.chars().count() + PADDING).max(MIN_WIDTH);
                match self.widths.get_mut(i) {
                    Some(old) => *old = (*old).max(w),
                    None => self.widths.push(w),
                }
            }
        }
        let mut out = String::new();
        for row in rows {
            let last = row.len().saturating_sub(1);
            for (i, cell) in row.iter().enumerate() {
                out.push_str(cell);
                if i < last {
                    let width = self.widths.get(i).copied().unwrap_or(MIN_WIDTH);
                    let pad = width.saturating_sub(cell.chars().count());
                    out.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|c| c.to_string()).collect()
    }

    #[test]
    fn pads_like_kubectl() {
        let mut w = TabWriter::new();
        let out = w.render(&[
            row(&["NAME", "READY", "STATUS", "RESTARTS", "AGE"]),
            row(&["debug-tools", "0/1", "Pending", "0", "0s"]),
        ]);
        assert_eq!(
            out,
            "NAME          READY   STATUS    RESTARTS   AGE\n\
             debug-tools   0/1     Pending   0          0s\n"
        );
    }

    #[test]
    fn remembers_widths_across_flushes() {
        let mut w = TabWriter::new();
        w.render(&[row(&["a", "ContainerCreating", "0"])]);
        assert_eq!(w.render(&[row(&["a", "Running", "0"])]), "a     Running             0\n");
        assert_eq!(TabWriter::new().render(&[row(&["x", "y"])]), "x     y\n");
    }
}
