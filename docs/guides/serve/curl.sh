#!/usr/bin/env bash
# A chat completion with curl. MTRL_URL: the server's /v1 address; MTRL_MODEL: the served name.
curl -s "${MTRL_URL:-http://127.0.0.1:8000/v1}/chat/completions" \
  -H 'content-type: application/json' -H "authorization: Bearer ${MTRL_TOKEN:-none}" \
  -d "{\"model\": \"${MTRL_MODEL:-mtrl}\", \"temperature\": 0,
       \"messages\": [{\"role\": \"system\", \"content\": \"You are an agent in a house.\"},
                      {\"role\": \"user\", \"content\": \"Say hello.\"}]}"
