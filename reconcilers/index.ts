// The public surface of reconcilers/.
export {};
