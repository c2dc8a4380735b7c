# A stand-in for python:3.11-slim built from a local Debian base, for machines that cannot
# pull images (container/engine.sh). Debian's CPython 3.11 with pip, venv and CA certificates.
ARG BASE=localhost/debian:bookworm
FROM ${BASE}
COPY ca/ /usr/local/share/ca-certificates/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 python3-venv python3-pip python-is-python3 ca-certificates \
 && update-ca-certificates \
 && rm -f /usr/lib/python3*/EXTERNALLY-MANAGED \
 && printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' > /etc/pip.conf \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt
CMD ["python3"]
