// inspect/: reading a running mesh for meshctl (reaching pods through the API server, config dumps,
// proxy and control-plane inspection). Exports are added by the code that lands here.
export {};
