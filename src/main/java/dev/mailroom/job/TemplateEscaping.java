package dev.mailroom.job;

import com.github.mustachejava.Mustache;
import com.github.mustachejava.MustacheFactory;
import java.io.IOException;
import java.io.Writer;

/** How a part writes a value: each is a Mustache factory whose {@code encode} is that escaping. */
enum TemplateEscaping {
    NONE {
        @Override
        void write(String value, Writer out) throws IOException {
            out.write(value);
        }
    },
    HTML {
        @Override
        void write(String value, Writer out) throws IOException {
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                switch (c) {
                    case '&' -> out.write("&amp;");
                    case '<' -> out.write("&lt;");
                    case '>' -> out.write("&gt;");
                    case '"' -> out.write("&quot;");
                    case '\'' -> out.write("&#39;");
                    default -> out.write(c);
                }
            }
        }
    },
    SUBJECT {
        @Override
        void write(String value, Writer out) throws IOException {
            out.write(TemplateRenderer.CONTROL.matcher(value).replaceAll(" "));
        }
    };

    final MustacheFactory factory = new PlaceholderFactory(this);

    /**
     * Writes one value. Not mustache.java's own {@code HtmlEscaper}: that one also encodes {@code =}
     * and a backtick, which turns every URL in an attribute into {@code &#61;} soup.
     */
    abstract void write(String value, Writer out) throws IOException;
}
