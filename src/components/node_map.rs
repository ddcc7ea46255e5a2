//! The node map: a cluster too large for one column per node (above
//! [`crate::state::NODE_MAP_THRESHOLD`]) drawn as one small cell per node, coloured by the
//! node's readiness and filled from the bottom by how many pods it holds out of the 110 a node
//! takes. Clicking a cell opens that node (its pods are listed beside the map).
//!
//! 5,000 cells as DOM elements would make every frame diff 5,000 elements; the map is instead
//! one canvas whose pixels are painted here in one pass ([`paint`]) and handed over in one
//! call, so a frame costs about the same at 100 nodes as at 5,000. The layout and hit testing
//! are pure arithmetic (tested natively).

use std::collections::HashMap;

use super::window::on_window_resize;
use super::{fill, tr, use_ctx};
use crate::i18n::T;
use crate::state::{pods_per_node, Action};
use wasm_bindgen::{Clamped, JsCast};
use watchlab_engine::cluster::NodeView;
use web_sys::{CanvasRenderingContext2d, Element, HtmlCanvasElement, ImageData};
use yew::prelude::*;

/// A node's state as the map colours it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Health {
    Ready,
    NotReady,
    /// No Ready condition posted yet.
    Unknown,
    /// The machine is down (the in-tab engine's fault injection).
    Killed,
}

impl Health {
    pub fn of(n: &NodeView) -> Health {
        if n.killed {
            Health::Killed
        } else {
            match n.status.as_str() {
                "Ready" => Health::Ready,
                "NotReady" => Health::NotReady,
                _ => Health::Unknown,
            }
        }
    }

    /// (the filled part, the empty part) as RGB: the page's `--ready`, `--failed`, `--muted`
    /// and `--term` colours, and dark versions of them.
    fn colours(self) -> ([u8; 3], [u8; 3]) {
        match self {
            Health::Ready => ([0x22, 0xc5, 0x5e], [0x12, 0x3a, 0x26]),
            Health::NotReady => ([0xf8, 0x71, 0x71], [0x4a, 0x1f, 0x24]),
            Health::Unknown => ([0x9f, 0xb0, 0xc8], [0x2a, 0x33, 0x44]),
            Health::Killed => ([0xfb, 0x92, 0x3c], [0x4a, 0x2a, 0x12]),
        }
    }
}

/// Where the cells go on a canvas of a given width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    pub cells: usize,
    pub columns: usize,
    pub rows: usize,
    /// A cell's side, gap included, in pixels.
    pub pitch: usize,
    /// A cell's drawn side.
    pub side: usize,
}

impl Grid {
    /// Cells as large as the count allows (a few hundred nodes get big cells, 5,000 small ones)
    /// in as many columns as `width_px` holds.
    pub fn new(cells: usize, width_px: usize) -> Grid {
        let pitch = match cells {
            0..=300 => 16,
            301..=1_500 => 12,
            _ => 8,
        };
        let side = pitch - if pitch > 8 { 2 } else { 1 };
        let columns = (width_px / pitch).max(1);
        Grid {
            cells,
            columns,
            rows: cells.div_ceil(columns),
            pitch,
            side,
        }
    }

    pub fn width(&self) -> usize {
        self.columns * self.pitch
    }

    pub fn height(&self) -> usize {
        self.rows * self.pitch
    }

    /// The cell under the pixel `(x, y)`, if any (the gaps count as their cell).
    pub fn hit(&self, x: f64, y: f64) -> Option<usize> {
        if !(x >= 0.0 && y >= 0.0) {
            return None;
        }
        let (column, row) = (x as usize / self.pitch, y as usize / self.pitch);
        let i = row.checked_mul(self.columns)?.checked_add(column)?;
        (column < self.columns && i < self.cells).then_some(i)
    }

    /// The top-left pixel of cell `i`.
    pub fn origin(&self, i: usize) -> (usize, usize) {
        (
            (i % self.columns) * self.pitch,
            (i / self.columns) * self.pitch,
        )
    }
}

/// One cell: the node's health and the share of its pod capacity in use (0..=1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    pub health: Health,
    pub fill: f64,
}

/// The cells of `nodes`, in order, with their pod counts from `by_node`.
pub fn cells(nodes: &[NodeView], by_node: &HashMap<String, usize>) -> Vec<Cell> {
    let capacity = pods_per_node().max(1) as f64;
    nodes
        .iter()
        .map(|n| Cell {
            health: Health::of(n),
            fill: (by_node.get(&n.name).copied().unwrap_or(0) as f64 / capacity).min(1.0),
        })
        .collect()
}

/// The RGBA pixels of the map (`grid.width()` × `grid.height()`), the open cell outlined.
pub fn paint(grid: &Grid, cells: &[Cell], open: Option<usize>) -> Vec<u8> {
    let (w, h) = (grid.width(), grid.height());
    let mut px = vec![0u8; w * h * 4];
    let mut rect = |x0: usize, y0: usize, x1: usize, y1: usize, rgb: [u8; 3]| {
        for y in y0..y1.min(h) {
            let row = y * w;
            for x in x0..x1.min(w) {
                let at = (row + x) * 4;
                if let Some(p) = px.get_mut(at..at + 4) {
                    p.copy_from_slice(&[rgb[0], rgb[1], rgb[2], 255]);
                }
            }
        }
    };
    for (i, c) in cells.iter().enumerate().take(grid.cells) {
        let (x, y) = grid.origin(i);
        let s = grid.side;
        let (full, empty) = c.health.colours();
        // At least one row for a node holding any pod, so one pod shows.
        let filled = if c.fill > 0.0 {
            ((c.fill * s as f64).ceil() as usize).clamp(1, s)
        } else {
            0
        };
        rect(x, y, x + s, y + s - filled, empty);
        rect(x, y + s - filled, x + s, y + s, full);
    }
    if let Some(i) = open.filter(|i| *i < grid.cells) {
        let (x, y) = grid.origin(i);
        let (s, white) = (grid.side, [0xff, 0xff, 0xff]);
        rect(x, y, x + s, y + 1, white);
        rect(x, y + s - 1, x + s, y + s, white);
        rect(x, y, x + 1, y + s, white);
        rect(x + s - 1, y, x + s, y + s, white);
    }
    px
}

fn draw(canvas: &HtmlCanvasElement, grid: &Grid, pixels: &[u8]) -> Option<()> {
    let (w, h) = (grid.width() as u32, grid.height() as u32);
    canvas.set_width(w);
    canvas.set_height(h);
    if w == 0 || h == 0 {
        return Some(());
    }
    let ctx = canvas
        .get_context("2d")
        .ok()??
        .dyn_into::<CanvasRenderingContext2d>()
        .ok()?;
    let image = ImageData::new_with_u8_clamped_array_and_sh(Clamped(pixels), w, h).ok()?;
    ctx.put_image_data(&image, 0.0, 0.0).ok()
}

/// The widest the map is drawn before it was measured.
const UNMEASURED_WIDTH_PX: usize = 900;

/// The map of every node; a click (or Enter on the node field) opens one.
// Long on purpose: a yew function component holds its hooks (measured width, window resize,
// hover, the canvas redraw) before its markup, which reads them.
#[component]
pub fn NodeMap() -> Html {
    let ctx = use_ctx();
    let frame = ctx.frame.clone();
    let wrapper = use_node_ref();
    let canvas = use_node_ref();
    let width = use_state_eq(|| UNMEASURED_WIDTH_PX);
    let hover = use_state_eq(|| None::<usize>);
    {
        // After each render, and on each window resize (nothing re-renders while the clock is
        // paused): follow the wrapper's width (window resizes, zoom, the splitter).
        let (wrapper, width) = (wrapper.clone(), width.clone());
        let measure = move || {
            if let Some(el) = wrapper.cast::<Element>() {
                let w = el.client_width().max(0) as usize;
                if w > 0 {
                    width.set(w);
                }
            }
        };
        let on_resize = measure.clone();
        use_effect(measure);
        use_effect_with((), move |_| on_window_resize(on_resize));
    }
    let grid = Grid::new(frame.nodes.len(), *width);
    let open = ctx
        .open_node
        .as_deref()
        .and_then(|name| frame.nodes.iter().position(|n| n.name == name));
    {
        let canvas = canvas.clone();
        let frame = frame.clone();
        use_effect_with((grid, open, ctx.version), move |_| {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                let pixels = paint(&grid, &cells(&frame.nodes, &frame.census.by_node), open);
                let _ = draw(&c, &grid, &pixels);
            }
        });
    }
    let at = move |e: &MouseEvent| grid.hit(f64::from(e.offset_x()), f64::from(e.offset_y()));
    let onclick = {
        let (ctx, nodes) = (ctx.clone(), frame.clone());
        Callback::from(move |e: MouseEvent| {
            if let Some(n) = at(&e).and_then(|i| nodes.nodes.get(i)) {
                let again = ctx.open_node.as_deref() == Some(n.name.as_str());
                ctx.dispatch(Action::OpenNode((!again).then(|| n.name.clone())));
            }
        })
    };
    let onmousemove = {
        let hover = hover.clone();
        Callback::from(move |e: MouseEvent| hover.set(at(&e)))
    };
    let onmouseleave = {
        let hover = hover.clone();
        Callback::from(move |_: MouseEvent| hover.set(None))
    };
    let by_health = |h: Health| frame.nodes.iter().filter(|n| Health::of(n) == h).count();
    let line = match hover.and_then(|i| frame.nodes.get(i)) {
        Some(n) => fill(
            &ctx,
            T::NodeMapCell,
            &[
                &n.name,
                &n.status,
                &frame
                    .census
                    .by_node
                    .get(&n.name)
                    .copied()
                    .unwrap_or(0)
                    .to_string(),
                &pods_per_node().to_string(),
            ],
        ),
        None => tr(&ctx, T::NodeMapHint).to_string(),
    };
    let legend = [
        (Health::Ready, "ready", T::LegendReady),
        (Health::NotReady, "notready", T::LegendNotReady),
        (Health::Unknown, "unknown", T::LegendUnknown),
        (Health::Killed, "killed", T::Killed),
    ];
    html! {
        <section class="node-map" aria-label={tr(&ctx, T::Nodes)}>
            <p class="legend">
                { for legend.iter().map(|(h, class, label)| html! {
                    <span class={classes!("key", *class)} data-health={*class} data-count={by_health(*h).to_string()}>
                        { format!("{} {}", tr(&ctx, *label), by_health(*h)) }</span>
                }) }
                <span class="key fill">{ fill(&ctx, T::LegendFill, &[&pods_per_node().to_string()]) }</span>
            </p>
            <p class="hover" id="node-map-hover" title={line.clone()}>{ line }</p>
            <div class="map-scroll" ref={wrapper}>
                <canvas id="node-map" ref={canvas} role="img" aria-label={fill(&ctx, T::NodeMapLabel, &[&frame.nodes.len().to_string()])}
                    data-nodes={frame.nodes.len().to_string()} data-columns={grid.columns.to_string()} data-pitch={grid.pitch.to_string()}
                    {onclick} {onmousemove} {onmouseleave}></canvas>
            </div>
        </section>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn node(name: &str, status: &str, killed: bool) -> NodeView {
        NodeView {
            name: name.into(),
            status: status.into(),
            killed,
            schedulable: true,
            resource_version: 1,
        }
    }

    #[test]
    fn every_node_gets_a_cell_within_the_width_and_clicks_find_it() {
        for (n, width) in [(61, 900), (1_000, 900), (5_000, 900), (5_000, 37), (100, 0)] {
            let g = Grid::new(n, width);
            assert!(g.columns * g.rows >= n, "{g:?}");
            assert!(g.width() <= width.max(g.pitch), "{g:?}");
            for i in [0, n / 2, n - 1] {
                let (x, y) = g.origin(i);
                let centre = (g.side / 2) as f64;
                assert_eq!(g.hit(x as f64 + centre, y as f64 + centre), Some(i));
            }
            // Past the last cell, beyond the width, or off the canvas: no node.
            assert_eq!(g.hit(g.width() as f64 + 1.0, 0.0), None);
            assert_eq!(g.hit(0.0, g.height() as f64 + 1.0), None);
            assert_eq!(g.hit(-1.0, 0.0), None);
            assert_eq!(g.hit(f64::NAN, 0.0), None);
        }
        // 5,000 cells on a 900 px wide map stay a screenful.
        assert!(Grid::new(5_000, 900).height() <= 400);
    }

    #[test]
    fn cells_are_coloured_by_health_and_filled_by_pods() {
        let nodes = [
            node("a", "Ready", false),
            node("b", "NotReady", false),
            node("c", "Ready", true),
            node("d", "Unknown", false),
        ];
        let by_node: HashMap<String, usize> =
            [("a".to_string(), 55), ("c".to_string(), 500)].into();
        let c = cells(&nodes, &by_node);
        assert_eq!(
            c.iter().map(|c| c.health).collect::<Vec<_>>(),
            [
                Health::Ready,
                Health::NotReady,
                Health::Killed,
                Health::Unknown
            ]
        );
        assert_eq!(c[0].fill, 0.5);
        assert_eq!(c[1].fill, 0.0);
        assert_eq!(c[2].fill, 1.0);
        let g = Grid::new(nodes.len(), 64);
        let px = paint(&g, &c, Some(1));
        assert_eq!(px.len(), g.width() * g.height() * 4);
        let at = |x: usize, y: usize| {
            let i = (y * g.width() + x) * 4;
            [px[i], px[i + 1], px[i + 2]]
        };
        let (full, empty) = Health::Ready.colours();
        // Half full: the bottom row of cell a is bright, the top row dark.
        let (x, y) = g.origin(0);
        assert_eq!(at(x + 3, y + g.side - 1), full);
        assert_eq!(at(x + 3, y + 1), empty);
        // The open cell is outlined.
        let (x, y) = g.origin(1);
        assert_eq!(at(x, y), [0xff, 0xff, 0xff]);
    }
}
