// Package cardlink reads and rewrites the interfaces an Agent Card
// declares, for a proxy or a replay that stands in the agent's place: where
// the card sends clients (its interface URLs, its GRPC interface's
// host:port) is pointed at the stand-in, and the GRPC address the agent
// declared is read so that gRPC calls can be passed on to it.
package cardlink

import (
	"encoding/json"
	"net"
	"net/url"
	"strings"
)

// Rewrite points the interface URLs of a card (v1.0
// supportedInterfaces[].url, v0.3 url and additionalInterfaces[].url,
// v0.1/v0.2 url) at toBase. A URL is rewritten when its path lies under
// fromPath, the path of the recorded agent's base URL; its host is not
// compared, because agents often advertise a public name or "localhost"
// for the address they were reached by. A GRPC interface (v1.0's
// protocolBinding, v0.3's transport or preferredTransport) is pointed at
// toBase's host:port, where the proxy (and a replay) serve gRPC too.
// Other URLs and bodies that are not JSON objects are left as they are.
func Rewrite(body []byte, inResult bool, fromPath, toBase string) []byte {
	if inResult {
		var env map[string]json.RawMessage
		if json.Unmarshal(body, &env) != nil || env["result"] == nil {
			return body
		}
		env["result"] = Rewrite(env["result"], false, fromPath, toBase)
		out, err := json.Marshal(env)
		if err != nil {
			return body
		}
		return out
	}
	var card map[string]json.RawMessage
	if json.Unmarshal(body, &card) != nil {
		return body
	}
	changed := false
	fix := func(raw json.RawMessage) (json.RawMessage, bool) {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return raw, false
		}
		ns, ok := rewriteURL(s, fromPath, toBase)
		if !ok {
			return raw, false
		}
		b, _ := json.Marshal(ns)
		return b, true
	}
	if raw, ok := card["url"]; ok {
		fixURL := fix
		if string(card["preferredTransport"]) == `"GRPC"` {
			// v0.3: the main interface is gRPC's, at host:port.
			fixURL = func(raw json.RawMessage) (json.RawMessage, bool) { return fixGRPC(raw, toBase) }
		}
		if nr, ok := fixURL(raw); ok {
			card["url"], changed = nr, true
		}
	}
	for _, key := range []string{"supportedInterfaces", "additionalInterfaces"} {
		raw, ok := card[key]
		if !ok {
			continue
		}
		var ifaces []map[string]json.RawMessage
		if json.Unmarshal(raw, &ifaces) != nil {
			continue
		}
		hit := false
		for _, ifc := range ifaces {
			u, ok := ifc["url"]
			if !ok {
				continue
			}
			if string(ifc["protocolBinding"]) == `"GRPC"` || string(ifc["transport"]) == `"GRPC"` {
				if nu, ok := fixGRPC(u, toBase); ok {
					ifc["url"], hit = nu, true
				}
				continue
			}
			if nu, ok := fix(u); ok {
				ifc["url"], hit = nu, true
			}
		}
		if hit {
			b, err := json.Marshal(ifaces)
			if err == nil {
				card[key], changed = b, true
			}
		}
	}
	if !changed {
		return body
	}
	out, err := json.Marshal(card)
	if err != nil {
		return body
	}
	return out
}

// fixGRPC points a GRPC interface's url (host:port, or a URL) at the host
// of toBase, keeping its form; a GRPC interface has no base path, so its
// host is not compared.
func fixGRPC(raw json.RawMessage, toBase string) (json.RawMessage, bool) {
	var s string
	base, err := url.Parse(toBase)
	if json.Unmarshal(raw, &s) != nil || err != nil || base.Host == "" || grpcHost(s) == "" {
		return raw, false
	}
	out := base.Host
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		u.Host = base.Host
		if u.Scheme == "http" || u.Scheme == "https" {
			u.Scheme = base.Scheme // TLS or not is the proxy's to say
		}
		out = u.String()
	}
	b, _ := json.Marshal(out)
	return b, true
}

func rewriteURL(s, fromPath, toBase string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return s, false
	}
	base := strings.TrimRight(fromPath, "/")
	if base != "" && u.Path != base && !strings.HasPrefix(u.Path, base+"/") {
		return s, false
	}
	out := strings.TrimRight(toBase, "/") + strings.TrimPrefix(u.Path, base)
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out, true
}

// GRPCAddress returns the address (host:port) of the GRPC interface a
// card declares (v1.0's supportedInterfaces, v0.3's url with
// preferredTransport GRPC or additionalInterfaces), "" when it declares
// none. inResult says the card is a JSON-RPC envelope's result.
func GRPCAddress(body []byte, inResult bool) string {
	if inResult {
		var env struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(body, &env) != nil {
			return ""
		}
		body = env.Result
	}
	type iface struct {
		URL             string `json:"url"`
		ProtocolBinding string `json:"protocolBinding"`
		Transport       string `json:"transport"`
	}
	var card struct {
		URL                  string  `json:"url"`
		PreferredTransport   string  `json:"preferredTransport"`
		SupportedInterfaces  []iface `json:"supportedInterfaces"`
		AdditionalInterfaces []iface `json:"additionalInterfaces"`
	}
	if json.Unmarshal(body, &card) != nil {
		return ""
	}
	if card.PreferredTransport == "GRPC" {
		return grpcHost(card.URL)
	}
	for _, ifc := range append(card.SupportedInterfaces, card.AdditionalInterfaces...) {
		if ifc.ProtocolBinding == "GRPC" || ifc.Transport == "GRPC" {
			return grpcHost(ifc.URL)
		}
	}
	return ""
}

// grpcHost reads the host:port of a GRPC interface's url, which agents
// write bare ("host:port") or as a URL.
func grpcHost(s string) string {
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		return u.Host
	}
	if _, _, err := net.SplitHostPort(s); err == nil {
		return s
	}
	return ""
}
