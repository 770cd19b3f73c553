package dev.mailroom.testsupport;

import java.util.HashMap;
import java.util.Map;

/**
 * Sets system properties for one test (MicroProfile Config reads them) and puts the old values back:
 * call {@link #restore()} from {@code @AfterEach}.
 */
public final class SystemProperties {

    private final Map<String, String> saved = new HashMap<>();

    public void set(String key, String value) {
        saved.putIfAbsent(key, System.getProperty(key));
        System.setProperty(key, value);
    }

    public void restore() {
        saved.forEach((k, v) -> {
            if (v == null) {
                System.clearProperty(k);
            } else {
                System.setProperty(k, v);
            }
        });
        saved.clear();
    }
}
