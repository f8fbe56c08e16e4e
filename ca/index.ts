// The public surface of ca/.
export {};
