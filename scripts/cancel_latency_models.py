#!/usr/bin/env python3
"""Hostile XGBoost JSON models for scripts/test-cancel-latency.sh (stdout).

  cancel_latency_models.py chain NODES
      one tree: a chain of (NODES - 1) / 2 splits on feature "a" (< 0.5 goes
      on down the chain, every other value to a leaf): a row with a < 0.5
      walks every split, so scoring one row costs NODES / 2 node visits.
  cancel_latency_models.py shap DEPTH FANOUT_LEVELS
      one tree for TreeSHAP: a full binary tree of FANOUT_LEVELS levels whose
      2^FANOUT_LEVELS bottom nodes each continue as a chain of DEPTH splits,
      every level on its own feature (f0, f1, ...), so every path is
      FANOUT_LEVELS + DEPTH distinct features long and explaining one row
      costs about (number of leaves) x depth^2 steps.

Only the Python standard library is used.
"""
import json
import sys


def model(trees, features):
    return {
        "learner": {
            "attributes": {},
            "feature_names": features,
            "feature_types": ["float"] * len(features),
            "gradient_booster": {
                "name": "gbtree",
                "model": {
                    "gbtree_model_param": {"num_parallel_tree": "1", "num_trees": str(len(trees))},
                    "iteration_indptr": list(range(len(trees) + 1)),
                    "tree_info": [0] * len(trees),
                    "trees": [dict(t, id=i) for i, t in enumerate(trees)],
                },
            },
            "learner_model_param": {"base_score": "[5E-1]", "boost_from_average": "1",
                                    "num_class": "0", "num_feature": str(len(features)),
                                    "num_target": "1"},
            "objective": {"name": "reg:squarederror",
                          "reg_loss_param": {"scale_pos_weight": "1"}},
        },
        "version": [3, 2, 0],
    }


class TreeBuilder:
    """Nodes in creation order (the root first), as XGBoost's arrays."""

    def __init__(self):
        self.left, self.right, self.parent = [], [], []
        self.feature, self.cond, self.weight = [], [], []

    def node(self, parent):
        self.left.append(-1)
        self.right.append(-1)
        self.parent.append(parent)
        self.feature.append(0)
        self.cond.append(0.001)
        self.weight.append(0.001)
        return len(self.left) - 1

    def split(self, n, feature, threshold):
        self.feature[n] = feature
        self.cond[n] = threshold
        self.weight[n] = 0.0
        self.left[n] = self.node(n)
        self.right[n] = self.node(n)
        return self.left[n], self.right[n]

    def tree(self, n_features):
        n = len(self.left)
        return {
            "base_weights": self.weight,
            "categories": [], "categories_nodes": [], "categories_segments": [],
            "categories_sizes": [],
            "default_left": [1] * n,
            "left_children": self.left,
            "right_children": self.right,
            "parents": [2147483647 if p < 0 else p for p in self.parent],
            "loss_changes": [1.0 if l >= 0 else 0.0 for l in self.left],
            "split_conditions": self.cond,
            "split_indices": self.feature,
            "split_type": [0] * n,
            "sum_hessian": [1.0] * n,
            "tree_param": {"num_deleted": "0", "num_feature": str(n_features),
                           "num_nodes": str(n), "size_leaf_vector": "1"},
        }


def chain(nodes):
    # Node 2k splits (k < depth), its left child 2k + 2 goes on, its right
    # child 2k + 1 is a leaf; node 2 * depth is the last leaf.
    depth = (nodes - 1) // 2
    n = 2 * depth + 1
    inner = [i % 2 == 0 and i < 2 * depth for i in range(n)]
    tree = {
        "base_weights": [0.0 if t else 0.001 for t in inner],
        "categories": [], "categories_nodes": [], "categories_segments": [],
        "categories_sizes": [],
        "default_left": [1] * n,
        "left_children": [i + 2 if t else -1 for i, t in enumerate(inner)],
        "right_children": [i + 1 if t else -1 for i, t in enumerate(inner)],
        "parents": [2147483647] + [(i - 1) // 2 * 2 for i in range(1, n)],
        "loss_changes": [1.0 if t else 0.0 for t in inner],
        "split_conditions": [0.5 if t else 0.001 for t in inner],
        "split_indices": [0] * n,
        "split_type": [0] * n,
        "sum_hessian": [1.0] * n,
        "tree_param": {"num_deleted": "0", "num_feature": "1", "num_nodes": str(n),
                       "size_leaf_vector": "1"},
    }
    return model([tree], ["a"])


def shap(depth, fanout_levels):
    b = TreeBuilder()
    level = [b.node(-1)]
    for f in range(fanout_levels):
        nxt = []
        for n in level:
            nxt.extend(b.split(n, f, 0.5))
        level = nxt
    for n in level:
        cur = n
        for f in range(fanout_levels, fanout_levels + depth):
            cur, _ = b.split(cur, f, 0.5)
    nf = fanout_levels + depth
    return model([b.tree(nf)], ["f%d" % i for i in range(nf)])


def main(argv):
    if len(argv) == 3 and argv[1] == "chain":
        m = chain(int(argv[2]))
    elif len(argv) == 4 and argv[1] == "shap":
        m = shap(int(argv[2]), int(argv[3]))
    else:
        sys.stderr.write(__doc__)
        return 2
    json.dump(m, sys.stdout, separators=(",", ":"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
