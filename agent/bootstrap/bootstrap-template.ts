/**
 * The built-in bootstrap template: Go text/template producing the data-plane proxy's Bootstrap as
 * protobuf JSON, after Istio's `envoy_bootstrap.json` (trimmed to what mesh acts on). The data it reads
 * is `BootstrapData` (bootstrap-data.ts); a `--templateFile` gets the same data.
 */
export const BUILT_IN_BOOTSTRAP_TEMPLATE = `{
  "node": {
    "id": "{{ .nodeID }}",
    "cluster": "{{ .cluster }}",
    "metadata": {{ .meta_json_str }}
  },
  "layered_runtime": {
    "layers": [
      { "name": "global config", "static_layer": { "envoy.reloadable_features.http_reject_path_with_fragment": false, "overload.global_downstream_max_connections": 2147483647, "re2.max_program_size.error_level": 32768 } },
      { "name": "admin", "admin_layer": {} }
    ]
  },
  "stats_config": {
    "use_all_default_tags": false,
    "stats_tags": [
      { "tag_name": "cluster_name", "regex": "^cluster\\\\.((.+?(\\\\..+?\\\\.svc\\\\.cluster\\\\.local)?)\\\\.)" },
      { "tag_name": "tcp_prefix", "regex": "^tcp\\\\.((.*?)\\\\.)\\\\w+?$" },
      { "tag_name": "response_code", "regex": "(response_code=\\\\.=(.+?);\\\\.;)|_rq(_(\\\\d{3}))$" },
      { "tag_name": "http_conn_manager_prefix", "regex": "^http\\\\.(((?:[_.[:digit:]]*|[_\\\\[\\\\]aAbBcCdDeEfF[:digit:]]*))\\\\.)" },
      { "tag_name": "listener_address", "regex": "^listener\\\\.(((?:[_.[:digit:]]*|[_\\\\[\\\\]aAbBcCdDeEfF[:digit:]]*))\\\\.)" }{{ range .extra_stat_tags }},
      { "tag_name": "{{ . }}", "regex": "({{ . }}=\\\\.=(.*?);\\\\.;)" }{{ end }}
    ]
  },
  "admin": {
    "profile_path": "/var/lib/mesh/data/dataplane.prof",
    "address": { "socket_address": { "protocol": "TCP", "address": "{{ .localhost }}", "port_value": {{ .config.ProxyAdminPort }} } }
  },
  "dynamic_resources": {
    "lds_config": { "ads": {}, "initial_fetch_timeout": "0s", "resource_api_version": "V3" },
    "cds_config": { "ads": {}, "initial_fetch_timeout": "0s", "resource_api_version": "V3" },
    "ads_config": {
      "api_type": "GRPC",
      "set_node_on_first_message_only": true,
      "transport_api_version": "V3",
      "grpc_services": [ { "envoy_grpc": { "cluster_name": "xds-grpc" } } ]
    }
  },
  "static_resources": {
    "clusters": [
      {
        "name": "prometheus_stats",
        "type": "STATIC",
        "connect_timeout": "0.250s",
        "lb_policy": "ROUND_ROBIN",
        "load_assignment": { "cluster_name": "prometheus_stats", "endpoints": [ { "lb_endpoints": [ { "endpoint": { "address": { "socket_address": { "protocol": "TCP", "address": "{{ .localhost }}", "port_value": {{ .config.ProxyAdminPort }} } } } } ] } ] }
      },
      {
        "name": "agent",
        "type": "STATIC",
        "connect_timeout": "0.250s",
        "lb_policy": "ROUND_ROBIN",
        "load_assignment": { "cluster_name": "agent", "endpoints": [ { "lb_endpoints": [ { "endpoint": { "address": { "socket_address": { "protocol": "TCP", "address": "{{ .localhost }}", "port_value": {{ .config.StatusPort }} } } } } ] } ] }
      },
      {
        "name": "sds-grpc",
        "type": "STATIC",
        "connect_timeout": "1s",
        "typed_extension_protocol_options": {
          "envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
            "@type": "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions",
            "explicit_http_config": { "http2_protocol_options": {} }
          }
        },
        "load_assignment": { "cluster_name": "sds-grpc", "endpoints": [ { "lb_endpoints": [ { "endpoint": { "address": { "pipe": { "path": "{{ .sds_socket_path }}" } } } } ] } ] }
      },
      {
        "name": "xds-grpc",
        "type": "STATIC",
        "connect_timeout": "1s",
        "lb_policy": "ROUND_ROBIN",
        "typed_extension_protocol_options": {
          "envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
            "@type": "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions",
            "explicit_http_config": { "http2_protocol_options": {} }
          }
        },
        "load_assignment": { "cluster_name": "xds-grpc", "endpoints": [ { "lb_endpoints": [ { "endpoint": { "address": { "pipe": { "path": "{{ .xds_socket_path }}" } } } } ] } ] }
      }{{ if .zipkin }},
      {
        "name": "zipkin",
        "type": "STRICT_DNS",
        "connect_timeout": "1s",
        "dns_lookup_family": "{{ .dns_lookup_family }}",
        "load_assignment": { "cluster_name": "zipkin", "endpoints": [ { "lb_endpoints": [ { "endpoint": { "address": { "socket_address": { "address": "{{ .zipkin.host }}", "port_value": {{ .zipkin.port }} } } } } ] } ] }
      }{{ end }}
    ],
    "listeners": [
      {
        "name": "prometheus",
        "address": { "socket_address": { "protocol": "TCP", "address": "{{ .wildcard }}", "port_value": {{ .prometheus_port }} } },
        "filter_chains": [ { "filters": [ { "name": "envoy.filters.network.http_connection_manager", "typed_config": {
          "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
          "codec_type": "AUTO",
          "stat_prefix": "stats",
          "route_config": { "virtual_hosts": [ { "name": "backend", "domains": [ "*" ], "routes": [ { "match": { "prefix": "/stats/prometheus" }, "route": { "cluster": "prometheus_stats" } } ] } ] },
          "http_filters": [ { "name": "envoy.filters.http.router", "typed_config": { "@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router" } } ]
        } } ] } ]
      },
      {
        "name": "readiness",
        "address": { "socket_address": { "protocol": "TCP", "address": "{{ .wildcard }}", "port_value": {{ .readiness_port }} } },
        "filter_chains": [ { "filters": [ { "name": "envoy.filters.network.http_connection_manager", "typed_config": {
          "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
          "codec_type": "AUTO",
          "stat_prefix": "agent",
          "route_config": { "virtual_hosts": [ { "name": "backend", "domains": [ "*" ], "routes": [ { "match": { "prefix": "/healthz/ready" }, "route": { "cluster": "agent" } } ] } ] },
          "http_filters": [ { "name": "envoy.filters.http.router", "typed_config": { "@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router" } } ]
        } } ] } ]
      }
    ]
  }{{ if .zipkin }},
  "tracing": {
    "http": {
      "name": "envoy.tracers.zipkin",
      "typed_config": {
        "@type": "type.googleapis.com/envoy.config.trace.v3.ZipkinConfig",
        "collector_cluster": "zipkin",
        "collector_endpoint": "/api/v2/spans",
        "collector_endpoint_version": "HTTP_JSON",
        "trace_id_128bit": true,
        "shared_span_context": false
      }
    }
  }{{ end }}
}
`;
