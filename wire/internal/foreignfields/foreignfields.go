// Package foreignfields holds, per dialect, the words for the fields of
// another dialect a send may carry that the dialect's agent ignores
// (wire.Descriptor.ForeignFields): data, kept apart from the rules.
package foreignfields

// V03InV10 names what v1.0 calls the v0.3 fields a v1.0 agent ignores.
var V03InV10 = map[string]string{
	"configuration.blocking":               "v0.3's; v1.0 reads returnImmediately, its inverse: without it a send blocks",
	"configuration.pushNotificationConfig": "v0.3's; v1.0 reads taskPushNotificationConfig, so no push was registered",
	"message.kind":                         "v0.3's discriminator; a v1.0 message has none",
	"message.parts[].kind":                 "v0.3's part discriminator; a v1.0 part is told by its member: text, raw, url or data",
	"message.parts[].file":                 "v0.3's file part; v1.0 reads raw or url, with filename and mediaType",
}

// V10InV0 names what v0.2 and v0.3 call the v1.0 fields their agents
// ignore.
var V10InV0 = map[string]string{
	"configuration.returnImmediately":          "v1.0's; v0.3 reads blocking: false instead, and without it a send blocks",
	"configuration.taskPushNotificationConfig": "v1.0's; v0.3 reads pushNotificationConfig, so no push was registered",
	"message.parts[].url":                      "v1.0's; v0.3 reads a file part's file.uri",
	"message.parts[].raw":                      "v1.0's; v0.3 reads a file part's file.bytes",
	"message.parts[].mediaType":                "v1.0's; v0.3 reads a file part's file.mimeType",
	"message.parts[].filename":                 "v1.0's; v0.3 reads a file part's file.name",
}
