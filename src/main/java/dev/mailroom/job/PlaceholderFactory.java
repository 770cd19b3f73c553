package dev.mailroom.job;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.DefaultMustacheVisitor;
import com.github.mustachejava.MustacheException;
import com.github.mustachejava.MustacheVisitor;
import com.github.mustachejava.TemplateContext;
import com.github.mustachejava.codes.ValueCode;
import com.github.mustachejava.reflect.MapObjectHandler;
import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * mustache.java restricted to {@code {{name}}} placeholders over the job's variable maps: no
 * partials (nothing is read from disk or classpath), no reflection into the values (a missing
 * {@code {{empty}}} must not print {@code Map.isEmpty()}), numbers as written, and a placeholder
 * without a scalar value recorded as missing instead of rendered as nothing.
 */
final class PlaceholderFactory extends DefaultMustacheFactory {

    /** The placeholders of one render that had no value, in order of use. */
    record MissingNames(Set<String> names) {
    }

    private final TemplateEscaping escaping;

    PlaceholderFactory(TemplateEscaping escaping) {
        super(name -> null); // no partials: a {{>x}} is refused below before it is resolved
        this.escaping = escaping;
        setObjectHandler(new VariablesHandler());
    }

    @Override
    public void encode(String value, Writer writer) {
        try {
            escaping.write(value, writer);
        } catch (IOException e) {
            throw new MustacheException("cannot write a value", e);
        }
    }

    /**
     * The tags a template may not use, by the {@link MustacheVisitor} method mustache.java's parser calls for
     * each, with how a refusal names it ({@code %s}: the tag's name).
     */
    private static final Map<String, String> REFUSED = Map.of(
            "iterable", "{{#%s}} (a section)",
            "notIterable", "{{^%s}} (an inverted section)",
            "name", "{{$%s}} (a block)",
            "checkName", "{{?%s}} (a block check)",
            "partial", "{{>%s}} (a partial)",
            "dynamicPartial", "{{>%s}} (a dynamic partial)",
            "extend", "{{<%s}} (inheritance)",
            "pragma", "{{%%%s}} (a pragma)",
            "comment", "{{!...}} (a comment)");

    /** What the parser may call: text, the document's structure, and values (checked in {@code value}). */
    private static final Set<String> ALLOWED = Set.of("mustache", "write", "eof", "value");

    /**
     * A visitor that lets only text and {@code {{name}}} placeholders through: the parser's calls named in
     * {@link #ALLOWED} go to a {@link DefaultMustacheVisitor} whose {@code value} takes escaped placeholders
     * only, every other call is a refused tag ({@link #REFUSED}, or named by its method: a tag kind a later
     * mustache.java adds is refused until it is allowed here). One table instead of an override per tag kind.
     */
    @Override
    public MustacheVisitor createMustacheVisitor() {
        MustacheVisitor placeholders = new DefaultMustacheVisitor(this) {
            @Override
            public void value(TemplateContext tc, String variable, boolean encoded) {
                if (!encoded) {
                    throw notAPlaceholder(tc, "{{{" + variable + "}}} (an unescaped value)");
                }
                if (!TemplateRenderer.PLACEHOLDER_NAME.matcher(variable).matches()) {
                    throw notAPlaceholder(tc, "{{" + variable + "}}");
                }
                list.add(new Placeholder(tc, df, variable));
            }
        };
        return (MustacheVisitor) java.lang.reflect.Proxy.newProxyInstance(MustacheVisitor.class.getClassLoader(),
                new Class<?>[] {MustacheVisitor.class}, (proxy, method, args) -> {
                    if (method.getDeclaringClass() == MustacheVisitor.class && !ALLOWED.contains(method.getName())) {
                        throw notAPlaceholder((TemplateContext) args[0], REFUSED.getOrDefault(method.getName(),
                                "{{%s}} (" + method.getName() + ")").formatted(args.length > 1 ? args[1] : ""));
                    }
                    try {
                        return method.invoke(placeholders, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static MustacheException notAPlaceholder(TemplateContext tc, String tag) {
        return new MustacheException("line " + tc.line() + " has " + TemplateRenderer.abbreviate(tag)
                + "; only {{name}} and {{path.to.name}} placeholders are allowed");
    }

    /** A {{name}} that records itself as missing when it has no scalar value. */
    private static final class Placeholder extends ValueCode {

        Placeholder(TemplateContext tc, DefaultMustacheFactory df, String variable) {
            super(tc, df, variable, true);
        }

        @Override
        public Writer execute(Writer writer, List<Object> scopes) {
            Object value = get(scopes);
            if (!(value instanceof String || value instanceof Number || value instanceof Boolean)) {
                ((MissingNames) scopes.get(0)).names().add(name); // absent, null, an object or a list
            }
            return super.execute(writer, scopes);
        }
    }

    /** Looks values up in the variable maps only (dotted paths), and prints numbers as written. */
    private static final class VariablesHandler extends MapObjectHandler {
        @Override
        public String stringify(Object value) {
            if (value instanceof BigDecimal d) {
                // as written (12.50), but never expand an extreme exponent into a huge string
                return Math.abs(d.scale()) <= 100 ? d.toPlainString() : d.toString();
            }
            return super.stringify(value);
        }
    }
}
