# Source this file to put Node 24 LTS first on PATH. The machines here ship an older Node; the npm
# registry's `node@24` package carries a real Node 24 binary, installed once into a cache folder.
#   source hack/node-env.sh
MESH_NODE_DIR="${MESH_NODE_DIR:-$HOME/.cache/mesh-node}"
if [ ! -x "$MESH_NODE_DIR/node_modules/node/bin/node" ]; then
  mkdir -p "$MESH_NODE_DIR"
  npm install --no-save --no-audit --no-fund --prefix "$MESH_NODE_DIR" node@24 >/dev/null || return 1
fi
export PATH="$MESH_NODE_DIR/node_modules/node/bin:$PATH"
