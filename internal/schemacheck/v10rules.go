package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// rule is what the v1.0 proto says about one message type beyond what its
// generated JSON Schema expresses.
type rule struct {
	// required lists the camelCase keys marked (google.api.field_behavior) =
	// REQUIRED. They must be present and not null; strings must be non-empty
	// unless listed in mayBeEmpty (ProtoJSON omits empty strings, so an empty
	// required string is a missing one).
	required   []string
	mayBeEmpty []string
	// nonEmpty lists repeated fields that must hold at least one element.
	nonEmpty []string
	// oneOf lists proto oneofs whose members are exclusive; exactlyOne says
	// whether one of them must be set.
	oneOf      []string
	exactlyOne bool
	// notUnspecified lists enum fields that must not be the zero value.
	notUnspecified map[string]string
	// objects, arrays and maps name the message type of nested fields, for
	// recursion. Free-form fields (metadata, data) are absent on purpose.
	objects map[string]string
	arrays  map[string]string
	maps    map[string]string
}

var v10Rules = map[string]rule{
	"Task": {
		required: []string{"id", "status"},
		objects:  map[string]string{"status": "TaskStatus"},
		arrays:   map[string]string{"history": "Message", "artifacts": "Artifact"},
	},
	"TaskStatus": {
		required:       []string{"state"},
		notUnspecified: map[string]string{"state": "TASK_STATE_UNSPECIFIED"},
		objects:        map[string]string{"message": "Message"},
	},
	"Message": {
		required:       []string{"messageId", "role", "parts"},
		nonEmpty:       []string{"parts"},
		notUnspecified: map[string]string{"role": "ROLE_UNSPECIFIED"},
		arrays:         map[string]string{"parts": "Part"},
	},
	"Part": {
		oneOf:      []string{"text", "raw", "url", "data"},
		exactlyOne: true,
	},
	"Artifact": {
		required: []string{"artifactId", "parts"},
		nonEmpty: []string{"parts"},
		arrays:   map[string]string{"parts": "Part"},
	},
	"TaskStatusUpdateEvent": {
		required: []string{"taskId", "contextId", "status"},
		objects:  map[string]string{"status": "TaskStatus"},
	},
	"TaskArtifactUpdateEvent": {
		required: []string{"taskId", "contextId", "artifact"},
		objects:  map[string]string{"artifact": "Artifact"},
	},
	"StreamResponse": {
		oneOf:      []string{"task", "message", "statusUpdate", "artifactUpdate"},
		exactlyOne: true,
		objects: map[string]string{"task": "Task", "message": "Message",
			"statusUpdate": "TaskStatusUpdateEvent", "artifactUpdate": "TaskArtifactUpdateEvent"},
	},
	"SendMessageResponse": {
		oneOf:      []string{"task", "message"},
		exactlyOne: true,
		objects:    map[string]string{"task": "Task", "message": "Message"},
	},
	"SendMessageRequest": {
		required: []string{"message"},
		objects:  map[string]string{"message": "Message", "configuration": "SendMessageConfiguration"},
	},
	"SendMessageConfiguration": {
		objects: map[string]string{"taskPushNotificationConfig": "TaskPushNotificationConfig"},
	},
	"ListTasksResponse": {
		required:   []string{"tasks", "nextPageToken", "pageSize", "totalSize"},
		mayBeEmpty: []string{"nextPageToken"},
		arrays:     map[string]string{"tasks": "Task"},
	},
	"ListTaskPushNotificationConfigsResponse": {
		arrays: map[string]string{"configs": "TaskPushNotificationConfig"},
	},
	"TaskPushNotificationConfig": {
		required: []string{"url"},
		objects:  map[string]string{"authentication": "AuthenticationInfo"},
	},
	"AuthenticationInfo": {required: []string{"scheme"}},
	"AgentCard": {
		required: []string{"name", "description", "supportedInterfaces", "version", "capabilities",
			"defaultInputModes", "defaultOutputModes", "skills"},
		objects: map[string]string{"provider": "AgentProvider", "capabilities": "AgentCapabilities"},
		arrays: map[string]string{"supportedInterfaces": "AgentInterface", "skills": "AgentSkill",
			"signatures": "AgentCardSignature"},
		maps: map[string]string{"securitySchemes": "SecurityScheme"},
	},
	"AgentCapabilities": {arrays: map[string]string{"extensions": "AgentExtension"}},
	"AgentExtension":    {},
	"AgentInterface":    {required: []string{"url", "protocolBinding", "protocolVersion"}},
	"AgentProvider":     {required: []string{"url", "organization"}},
	"AgentSkill":        {required: []string{"id", "name", "description", "tags"}},
	"AgentCardSignature": {
		required: []string{"protected", "signature"},
	},
	"SecurityScheme": {
		oneOf: []string{"apiKeySecurityScheme", "httpAuthSecurityScheme", "oauth2SecurityScheme",
			"openIdConnectSecurityScheme", "mtlsSecurityScheme"},
		exactlyOne: true,
		objects: map[string]string{"apiKeySecurityScheme": "APIKeySecurityScheme",
			"httpAuthSecurityScheme": "HTTPAuthSecurityScheme", "oauth2SecurityScheme": "OAuth2SecurityScheme",
			"openIdConnectSecurityScheme": "OpenIdConnectSecurityScheme"},
	},
	"APIKeySecurityScheme":        {required: []string{"location", "name"}},
	"HTTPAuthSecurityScheme":      {required: []string{"scheme"}},
	"OpenIdConnectSecurityScheme": {required: []string{"openIdConnectUrl"}},
	"OAuth2SecurityScheme": {
		required: []string{"flows"},
		objects:  map[string]string{"flows": "OAuthFlows"},
	},
	"OAuthFlows": {
		oneOf:      []string{"authorizationCode", "clientCredentials", "implicit", "password", "deviceCode"},
		exactlyOne: true,
		objects: map[string]string{"authorizationCode": "AuthorizationCodeOAuthFlow",
			"clientCredentials": "ClientCredentialsOAuthFlow", "deviceCode": "DeviceCodeOAuthFlow"},
	},
	"AuthorizationCodeOAuthFlow": {required: []string{"authorizationUrl", "tokenUrl", "scopes"}},
	"ClientCredentialsOAuthFlow": {required: []string{"tokenUrl", "scopes"}},
	"DeviceCodeOAuthFlow":        {required: []string{"deviceAuthorizationUrl", "tokenUrl", "scopes"}},
}

// legacyKeys are v0.x discriminators that must not appear in v1.0 JSON.
var legacyKeys = []string{"kind", "final"}

// CheckV10Rules checks doc, a v1.0 def, for what the generated v1.0 JSON
// Schema cannot express: REQUIRED fields of the proto, one-of exclusivity
// (Part, StreamResponse, SendMessageResponse, SecurityScheme, OAuthFlows),
// unspecified enum values in required enums, and the legacy `kind` / `final`
// keys. Free-form values (metadata, Part.data) are not inspected, since a
// client may legitimately put a "kind" key there. Keys are checked in their
// camelCase spelling only, which is what a server must emit.
func CheckV10Rules(def string, doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("schemacheck: document is not JSON: %w", err)
	}
	var errs []error
	checkV10(def, "$", v, &errs)
	return errors.Join(errs...)
}

func checkV10(def, path string, v any, errs *[]error) {
	r, known := v10Rules[def]
	obj, isObj := v.(map[string]any)
	if !isObj {
		if known && v != nil {
			*errs = append(*errs, fmt.Errorf("%s: %s must be a JSON object", path, def))
		}
		return
	}
	for _, k := range legacyKeys {
		if _, ok := obj[k]; ok {
			*errs = append(*errs, fmt.Errorf("%s: legacy key %q is not part of v1.0 %s", path, k, def))
		}
	}
	if !known {
		return
	}
	for _, k := range r.required {
		val, ok := obj[k]
		switch {
		case !ok || val == nil:
			*errs = append(*errs, fmt.Errorf("%s: %s.%s is REQUIRED", path, def, k))
		case val == "" && !contains(r.mayBeEmpty, k):
			*errs = append(*errs, fmt.Errorf("%s: %s.%s is REQUIRED and must not be empty", path, def, k))
		}
	}
	for _, k := range r.nonEmpty {
		if arr, ok := obj[k].([]any); ok && len(arr) == 0 {
			*errs = append(*errs, fmt.Errorf("%s: %s.%s must not be empty", path, def, k))
		}
	}
	for k, zero := range r.notUnspecified {
		if val, ok := obj[k]; ok && (val == zero || val == json.Number("0")) {
			*errs = append(*errs, fmt.Errorf("%s: %s.%s must not be %s", path, def, k, zero))
		}
	}
	if len(r.oneOf) > 0 {
		var set []string
		for _, k := range r.oneOf {
			if val, ok := obj[k]; ok && val != nil {
				set = append(set, k)
			}
		}
		if len(set) > 1 || (r.exactlyOne && len(set) == 0) {
			*errs = append(*errs, fmt.Errorf("%s: exactly one of %s must be set in %s (found %d: %s)",
				path, strings.Join(r.oneOf, ", "), def, len(set), strings.Join(set, ", ")))
		}
	}
	for _, k := range sortedKeys(r.objects) {
		if val, ok := obj[k]; ok {
			checkV10(r.objects[k], path+"."+k, val, errs)
		}
	}
	for _, k := range sortedKeys(r.arrays) {
		if arr, ok := obj[k].([]any); ok {
			for i, el := range arr {
				checkV10(r.arrays[k], fmt.Sprintf("%s.%s[%d]", path, k, i), el, errs)
			}
		}
	}
	for _, k := range sortedKeys(r.maps) {
		if m, ok := obj[k].(map[string]any); ok {
			for _, mk := range sortedKeys(m) {
				checkV10(r.maps[k], fmt.Sprintf("%s.%s[%q]", path, k, mk), m[mk], errs)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
