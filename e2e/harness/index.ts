// The e2e harness: a real etcd and kube-apiserver for tests, and the run's shared cluster.
export { generateClusterPki, type ClusterPki, type CertKeyPair } from './certs.js';
export { ManagedProcess, freePort } from './child-process.js';
export { ensureTestBinaries, TestBinariesError, type TestBinaries } from './test-binaries.js';
export {
  TestControlPlane,
  ControlPlaneError,
  API_AUDIENCES,
  SERVICE_ACCOUNT_ISSUER,
  type TestControlPlaneOptions,
} from './test-control-plane.js';
export { e2eCluster, startE2eCluster, stopE2eCluster, type E2eCluster, type E2eClusterOptions } from './e2e-cluster.js';
export { WaitAborted, waitFor } from './wait-for.js';
export { uniqueName, httpStatusOf, createTestNamespace, deleteNamespaceFully } from './namespaces.js';
export { TcpProxy } from './tcp-proxy.js';
export { applyCrds } from './crds.js';
export { spawnMeshd, type MeshdChild, type MeshdPorts, type SpawnMeshdOptions } from './meshd-child.js';
export { markDeploymentsAvailable } from './deployment-stand-in.js';
