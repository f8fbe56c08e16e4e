// The public surface of controllers/.
export {};
