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

/// Go's text/tabwriter on a whole text, without remembered widths: cells end at tabs, and a
/// column is aligned only across consecutive lines that have it (kubectl describe uses
/// min width 0, padding 2).
pub fn align(text: &str, min_width: usize, padding: usize) -> String {
    let lines: Vec<Vec<&str>> = text.split('\n').map(|l| l.split('\t').collect()).collect();
    let mut widths: Vec<Vec<usize>> = lines
        .iter()
        .map(|l| vec![0; l.len().saturating_sub(1)])
        .collect();
    fill_widths(&lines, &mut widths, 0, lines.len(), 0, min_width, padding);
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        for (j, cell) in line.iter().enumerate() {
            out.push_str(cell);
            if let Some(w) = widths.get(i).and_then(|ws| ws.get(j)) {
                let pad = w.saturating_sub(cell.chars().count());
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        if i + 1 < lines.len() {
            out.push('\n');
        }
    }
    out
}

/// Go tabwriter's `format`: a column block is a run of consecutive lines with a cell in
/// `column`; its width is the widest cell plus padding; blocks recurse into the next column.
fn fill_widths(
    lines: &[Vec<&str>],
    widths: &mut [Vec<usize>],
    from: usize,
    to: usize,
    column: usize,
    min_width: usize,
    padding: usize,
) {
    let has = |i: usize| {
        lines
            .get(i)
            .is_some_and(|l| l.len().saturating_sub(1) > column)
    };
    let mut i = from;
    while i < to {
        if !has(i) {
            i += 1;
            continue;
        }
        let start = i;
        let mut width = min_width;
        while i < to && has(i) {
            let cell = lines
                .get(i)
                .and_then(|l| l.get(column))
                .map_or(0, |c| c.chars().count());
            width = width.max(cell + padding);
            i += 1;
        }
        for ws in widths.iter_mut().take(i).skip(start) {
            if let Some(w) = ws.get_mut(column) {
                *w = width;
            }
        }
        fill_widths(lines, widths, start, i, column + 1, min_width, padding);
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
    fn align_blocks_like_go() {
        let text = "Name:\tx\nService Account:\tdefault\nIPs:\n  IP:\t10.0.0.1\n";
        assert_eq!(
            align(text, 0, 2),
            "Name:             x\nService Account:  default\nIPs:\n  IP:  10.0.0.1\n"
        );
    }

    #[test]
    fn remembers_widths_across_flushes() {
        let mut w = TabWriter::new();
        w.render(&[row(&["a", "ContainerCreating", "0"])]);
        assert_eq!(
            w.render(&[row(&["a", "Running", "0"])]),
            "a     Running             0\n"
        );
        assert_eq!(TabWriter::new().render(&[row(&["x", "y"])]), "x     y\n");
    }
}
