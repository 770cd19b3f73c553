package dev.mailroom.alert;

import java.util.regex.Pattern;

/** Alertmanager (Prometheus) label names: {@code [a-zA-Z_][a-zA-Z0-9_]*}; anything else is rejected by the receiver. */
final class LabelNames {

    private static final Pattern NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

    private LabelNames() {
    }

    static boolean valid(String name) {
        return name != null && NAME.matcher(name).matches();
    }
}
