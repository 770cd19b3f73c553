package dev.mailroom.provider.sandbox;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A file the sandbox provider would have sent with one of its mails, kept byte for byte. */
@Entity
@Table(name = "sandbox_attachment")
public class SandboxAttachment {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    @Column(name = "sandbox_mail_id")
    private Long sandboxMailId;
    private int position;
    private String filename;
    @Column(name = "content_type")
    private String contentType;
    private byte[] content;
    @Column(name = "size_bytes")
    private long sizeBytes;
    private String sha256;

    protected SandboxAttachment() {
    }

    SandboxAttachment(Long sandboxMailId, int position, String filename, String contentType, byte[] content,
                      String sha256) {
        this.sandboxMailId = sandboxMailId;
        this.position = position;
        this.filename = filename;
        this.contentType = contentType;
        this.content = content;
        this.sizeBytes = content.length;
        this.sha256 = sha256;
    }

    public Long getSandboxMailId() { return sandboxMailId; }
    public int getPosition() { return position; }
    public String getFilename() { return filename; }
    public String getContentType() { return contentType; }
    public byte[] getContent() { return content; }
    public long getSizeBytes() { return sizeBytes; }
    public String getSha256() { return sha256; }
}
