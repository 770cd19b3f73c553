package dev.mailroom.reconcile;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** A webhook call as it arrived: header names case-insensitive, the body as raw bytes (signatures cover bytes). */
public record WebhookRequest(Map<String, String> headers, byte[] body) {

    public WebhookRequest {
        TreeMap<String, String> folded = new TreeMap<>();
        headers.forEach((name, value) -> folded.put(name.toLowerCase(Locale.ROOT), value));
        headers = Map.copyOf(folded);
        body = body.clone();
    }

    public Optional<String> header(String name) {
        return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT))).map(String::trim).filter(v -> !v.isEmpty());
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public byte[] body() {
        return body.clone();
    }
}
