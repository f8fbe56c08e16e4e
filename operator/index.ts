// operator/: the MeshOperator reconciler (render, server-side apply, prune, status) behind `operator server`.
// Exports are added by the code that lands here.
export {};
