// The public surface of agent/.
export {};
