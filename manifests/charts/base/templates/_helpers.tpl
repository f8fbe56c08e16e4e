{{/* Labels every object of the base chart carries. */}}
{{- define "base.labels" -}}
app.kubernetes.io/name: base
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: mesh
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version | replace "+" "_" }}
mesh.io/rev: {{ .Values.defaultRevision | default "default" | quote }}
{{- end }}
