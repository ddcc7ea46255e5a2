//! etcdctl's `-w table` layout: the olekukonko/tablewriter tables it prints, byte for byte —
//! `+---+` borders, headers centred (an odd space goes right), every cell right-aligned
//! (etcdctl sets `ALIGN_RIGHT`), one space of padding on each side.

/// The table, each line ending in a newline.
pub fn render(header: &[&str], rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = header
        .iter()
        .enumerate()
        .map(|(i, h)| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .chain([h.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let border: String = widths.iter().fold("+".to_string(), |mut s, w| {
        s.push_str(&"-".repeat(w + 2));
        s.push('+');
        s
    });
    let mut out = format!("{border}\n");
    let line = |cells: Vec<String>| {
        let mut s = "|".to_string();
        for c in cells {
            s.push(' ');
            s.push_str(&c);
            s.push_str(" |");
        }
        s.push('\n');
        s
    };
    out.push_str(&line(
        header
            .iter()
            .zip(&widths)
            .map(|(h, w)| centred(h, *w))
            .collect(),
    ));
    out.push_str(&border);
    out.push('\n');
    for r in rows {
        out.push_str(&line(
            widths
                .iter()
                .enumerate()
                .map(|(i, w)| format!("{:>w$}", r.get(i).map_or("", String::as_str)))
                .collect(),
        ));
    }
    out.push_str(&border);
    out.push('\n');
    out
}

fn centred(text: &str, width: usize) -> String {
    let gap = width.saturating_sub(text.chars().count());
    let left = gap / 2;
    format!("{}{text}{}", " ".repeat(left), " ".repeat(gap - left))
}

/// go-humanize's `Bytes` (SI units), as `endpoint status` prints DB SIZE: `25 kB`, `1.6 MB`.
pub fn si_bytes(n: u64) -> String {
    const UNITS: [&str; 7] = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
    if n < 10 {
        return format!("{n} B");
    }
    let e = ((n as f64).ln() / 1000f64.ln()).floor() as usize;
    let e = e.min(UNITS.len() - 1);
    let val = ((n as f64 / 1000f64.powi(e as i32)) * 10.0 + 0.5).floor() / 10.0;
    if val < 10.0 {
        format!("{val:.1} {}", UNITS[e])
    } else {
        format!("{val:.0} {}", UNITS[e])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_centre_and_cells_align_right() {
        let t = render(
            &["ID", "IS LEADER"],
            &[vec!["8e9e05c52164694d".into(), "true".into()]],
        );
        assert_eq!(
            t,
            "+------------------+-----------+\n\
             |        ID        | IS LEADER |\n\
             +------------------+-----------+\n\
             | 8e9e05c52164694d |      true |\n\
             +------------------+-----------+\n"
        );
        assert_eq!(centred("AB", 5), " AB  ");
    }

    #[test]
    fn bytes_as_go_humanize_prints_them() {
        assert_eq!(si_bytes(5), "5 B");
        assert_eq!(si_bytes(20_480), "20 kB");
        assert_eq!(si_bytes(1_600_000), "1.6 MB");
        assert_eq!(si_bytes(999), "999 B");
        assert_eq!(si_bytes(1_000), "1.0 kB");
    }
}
