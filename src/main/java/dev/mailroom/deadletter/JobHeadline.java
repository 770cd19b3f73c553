package dev.mailroom.deadletter;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * To whom and about what a dead letter's stored payload is: its first {@code to} address and its
 * {@code subject}, read with a streaming parser from the top level of the job JSON (nothing else is
 * built). A payload that is not a job object (poison, truncated) gives what was read before it broke.
 */
final class JobHeadline {

    private static final JsonFactory JSON = new JsonFactory();

    private JobHeadline() {
    }

    /** {@code [first recipient, subject]}, either null when the payload has none. */
    static String[] of(byte[] payload) {
        String[] result = new String[2];
        if (payload == null || payload.length == 0) {
            return result;
        }
        try (JsonParser p = JSON.createParser(payload)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return result;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME && (result[0] == null || result[1] == null)) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if ("subject".equals(name) && value == JsonToken.VALUE_STRING) {
                    result[1] = p.getText();
                } else if ("to".equals(name) && value == JsonToken.START_ARRAY) {
                    int n = 0;
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        if (n++ == 0 && p.currentToken() == JsonToken.VALUE_STRING) {
                            result[0] = p.getText();
                        }
                        p.skipChildren();
                    }
                    if (n > 1 && result[0] != null) {
                        result[0] = result[0] + " (+" + (n - 1) + ")";
                    }
                } else if ("to".equals(name) && value == JsonToken.VALUE_STRING) {
                    result[0] = p.getText();
                } else {
                    p.skipChildren();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not JSON, or cut off by the stored size: what was read before stays
        }
        return result;
    }
}
