/** The web UIs `meshctl dashboard` opens, and how to find each one's pod. */

/** An add-on UI found by label in the add-on namespace. */
export interface AddonDashboard {
  /** Names the component in messages. */
  readonly what: string;
  /** The label selector of its pods. */
  readonly selector: string;
  /** The path the URL opens. */
  readonly path: string;
}

/** The add-on UIs by subcommand (istioctl's grafana, jaeger, kiali, prometheus, skywalking, zipkin). */
export const ADDON_DASHBOARDS: Readonly<Record<string, AddonDashboard>> = {
  'metrics-ui': { what: 'the metrics dashboard UI (Grafana)', selector: 'app.kubernetes.io/name=grafana', path: '' },
  'tracing-ui-1': { what: 'the tracing UI (Jaeger)', selector: 'app=jaeger', path: '' },
  'topology-ui': { what: 'the topology UI (Kiali)', selector: 'app=kiali', path: '/kiali' },
  'metrics-store': { what: 'the metrics store UI (Prometheus)', selector: 'app.kubernetes.io/name=prometheus', path: '' },
  'tracing-ui-2': { what: 'the tracing UI (SkyWalking)', selector: 'app=skywalking-ui', path: '' },
  'tracing-ui-3': { what: 'the tracing UI (Zipkin)', selector: 'app=zipkin', path: '' },
};

/** The selector of meshd's pods, where `dashboard controlz` goes without a target. */
export const MESHD_SELECTOR = 'app=meshd';

/** The URL of a forward: `http://localhost:<port><path>` (brackets for an IPv6 address). */
export function dashboardUrl(address: string, port: number, path: string): string {
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${port}${path}`;
}
