package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
)

// decode reads a JSON body strictly into dst: unknown fields, trailing data and
// wrong types are errors naming the field. An empty body is allowed when
// optional, leaving dst as it is.
func decode(c *gin.Context, dst any, optional bool) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	return decodeBody(body, dst, optional)
}

func readBody(c *gin.Context) ([]byte, error) {
	body, err := io.ReadAll(c.Request.Body)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, errTooLarge
	}
	if stalledBody(err) {
		return nil, errBodyTimeout
	}
	if err != nil {
		return nil, invalid("", "could not read the request body")
	}
	return body, nil
}

// decodeBody is decode for a body already read.
func decodeBody(body []byte, dst any, optional bool) error {
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return nil
		}
		return invalid("", "a JSON body is required")
	}
	if err := strictKeys(body, dst); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	// More() misses a stray ] or } after the value; only EOF is clean.
	if _, err := dec.Token(); err != io.EOF {
		return invalid("", "the body must hold one JSON value and nothing after it")
	}
	return nil
}

func jsonError(err error) *Error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		e := invalid(typeErr.Field, typeErr.Field+" must be "+kind(typeErr.Type.Kind().String()))
		e.wrongType = true
		return e
	case errors.As(err, &syntaxErr):
		return invalid("", "malformed JSON at byte "+strconv.FormatInt(syntaxErr.Offset, 10))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return invalid(field, "unknown field "+field)
	}
	return invalid("", "malformed JSON: "+err.Error())
}

func kind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"):
		return "a whole number"
	case k == "string":
		return "a string"
	case k == "ptr", k == "struct":
		return "a string in RFC 3339 form"
	}
	return "of type " + k
}

// pathID parses the :id path parameter as a positive integer.
func pathID(c *gin.Context, notFound *Error) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, notFound
	}
	return id, nil
}
