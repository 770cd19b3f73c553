package dev.mailroom.platform;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import jakarta.inject.Qualifier;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

/**
 * The registry Mailroom's meters go to ({@link MeterRegistries}): the server's own where the server has one
 * (WildFly's Micrometer subsystem), otherwise one Mailroom keeps and serves itself (Open Liberty).
 */
@Qualifier
@Retention(RUNTIME)
@Target({FIELD, METHOD, PARAMETER})
public @interface Meters {

    /** The qualifier as a value, for a programmatic lookup. */
    final class Literal extends jakarta.enterprise.util.AnnotationLiteral<Meters> implements Meters {
        private static final long serialVersionUID = 1L;
    }
}
