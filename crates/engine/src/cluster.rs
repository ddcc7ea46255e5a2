//! The simulated cluster as one value the UI, tests and benchmarks drive the same way.
//!
//! (Foundation version: three nodes and pods placed round-robin. It grows into the API server,
//! informers and controllers; the UI only ever sees this façade.)

use crate::rng::SimRng;

/// A node as the cluster view shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeView {
    pub name: String,
    pub ready: bool,
}

/// A pod as the cluster view shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodView {
    pub namespace: String,
    pub name: String,
    pub node_name: Option<String>,
    pub phase: String,
}

/// The whole simulated cluster.
#[derive(Debug, Clone)]
pub struct Cluster {
    nodes: Vec<NodeView>,
    pods: Vec<PodView>,
    rng: SimRng,
}

impl Cluster {
    /// A cluster of three Ready nodes (`node-a`, `node-b`, `node-c`, as in the seed texts).
    pub fn new(seed: u64) -> Self {
        let nodes = ["node-a", "node-b", "node-c"]
            .iter()
            .map(|n| NodeView {
                name: (*n).to_string(),
                ready: true,
            })
            .collect();
        Cluster {
            nodes,
            pods: Vec::new(),
            rng: SimRng::child(seed, "cluster"),
        }
    }

    pub fn nodes(&self) -> &[NodeView] {
        &self.nodes
    }

    pub fn pods(&self) -> &[PodView] {
        &self.pods
    }

    /// Creates a pod named `<prefix><5 random chars>` (like `generateName`) and returns its name.
    pub fn create_pod(&mut self, generate_name: &str) -> String {
        let name = format!("{generate_name}{}", self.rng.name_suffix(5));
        let node = &self.nodes[self.pods.len() % self.nodes.len()];
        self.pods.push(PodView {
            namespace: "default".into(),
            name: name.clone(),
            node_name: Some(node.name.clone()),
            phase: "Pending".into(),
        });
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_with_three_ready_nodes_and_no_pods() {
        let c = Cluster::new(1);
        let names: Vec<_> = c.nodes().iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["node-a", "node-b", "node-c"]);
        assert!(c.nodes().iter().all(|n| n.ready));
        assert!(c.pods().is_empty());
    }

    #[test]
    fn created_pods_get_generated_names_and_a_node() {
        let mut c = Cluster::new(1);
        let a = c.create_pod("web-");
        let b = c.create_pod("web-");
        assert_ne!(a, b);
        assert!(a.starts_with("web-") && a.len() == 9, "{a}");
        assert_eq!(c.pods().len(), 2);
        assert!(c.pods().iter().all(|p| p.node_name.is_some()));
    }
}
