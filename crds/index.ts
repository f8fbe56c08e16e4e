// The public surface of crds/.
export {};
