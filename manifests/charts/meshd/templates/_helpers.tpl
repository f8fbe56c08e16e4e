{{/* `-<revision>` for a named revision, nothing for the default one. */}}
{{- define "meshd.suffix" -}}
{{- if .Values.revision }}-{{ .Values.revision }}{{ end }}
{{- end }}

{{/* The revision label value: the revision, or `default`. */}}
{{- define "meshd.revision" -}}
{{ .Values.revision | default "default" }}
{{- end }}

{{/* Name of meshd's Deployment, Service and ServiceAccount. */}}
{{- define "meshd.name" -}}
meshd{{ include "meshd.suffix" . }}
{{- end }}

{{/* Labels every object of the chart carries. */}}
{{- define "meshd.labels" -}}
app.kubernetes.io/name: meshd
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: mesh
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version | replace "+" "_" }}
mesh.io/rev: {{ include "meshd.revision" . }}
{{- end }}

{{/* The image of a component: an image with a `/` is used as is; otherwise hub/image:tag[-variant]. */}}
{{- define "meshd.image" -}}
{{- if contains "/" .Values.pilot.image -}}
{{ .Values.pilot.image }}
{{- else -}}
{{ .Values.pilot.hub | default .Values.global.hub }}/{{ .Values.pilot.image }}:{{ .Values.pilot.tag | default .Values.global.tag }}{{ with (.Values.pilot.variant | default .Values.global.variant) }}-{{ . }}{{ end }}
{{- end -}}
{{- end }}
