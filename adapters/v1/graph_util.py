"""``tf.compat.v1.graph_util``: freezing (``convert_variables_to_constants``) and
pruning ``GraphDef``s."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework.graph_util import (
    convert_variables_to_constants,
    extract_sub_graph,
    import_graph_def,
    must_run_on_cpu,
    remove_training_nodes,
    tensor_shape_from_node_def_name,
)

__all__ = [
    "convert_variables_to_constants",
    "extract_sub_graph",
    "import_graph_def",
    "must_run_on_cpu",
    "remove_training_nodes",
    "tensor_shape_from_node_def_name",
]

__getattr__ = missing_name_getattr("tf.graph_util", globals())
