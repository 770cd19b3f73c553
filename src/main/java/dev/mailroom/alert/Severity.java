package dev.mailroom.alert;

import java.util.Locale;

/** How loud an alert is: the {@code severity} label Alertmanager routes on. */
public enum Severity {
    /** Someone is woken up: the code or a provider is broken, or mail is piling up unseen. */
    PAGE,
    /** Someone looks during working hours: a data problem with individual jobs. */
    TICKET;

    /** The label value: {@code page} or {@code ticket}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
