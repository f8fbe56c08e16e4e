// The public surface of cli/.
export {};
