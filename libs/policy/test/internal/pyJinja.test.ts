import { describe, expect, it } from 'vitest'
import * as FloatJson from '../../src/internal/floatJson.js'
import * as _ from '../../src/internal/pyJinja.js'
import * as Py from '../../src/internal/pyValues.js'

// Expected texts: printed by Python (transformers 5.18.0's own Jinja environment,
// `transformers.utils.chat_template_utils._compile_jinja_template(src).render(**vars)`, jinja2 3.1.6)
// for the same sources and variables, on 2026-12-06.
const render = (source: string, json: string = '{}'): string => _.render(FloatJson.parse(json) as Record<string, unknown>)(_.compile(source))

describe('pyJinja: templates render as Jinja2 under transformers renders them', () => {
  it('prints none, booleans and undefined as Python does, also through ~', () => {
    expect(render("{{ x }}|{{ t }}|{{ f }}|{{ x ~ '!' }}|{{ u }}", '{"x": null, "t": true, "f": false}')).toBe('None|True|False|None!|')
  })

  it('applies `string` to any value as str(): dicts, lists, none, floats', () => {
    const vars = '{"d": {"a": 1, "b": [1.5, null, true], "c": "it\'s"}, "l": ["x", "say \\"hi\\"", "a\'b\\"c", "tab\\there"], "x": null}'
    expect(render('{{ d | string }}|{{ l | string }}|{{ x | string }}|{{ 2.0 | string }}', vars)).toBe(
      `{'a': 1, 'b': [1.5, None, True], 'c': "it's"}|['x', 'say "hi"', 'a\\'b"c', 'tab\\there']|None|2.0`
    )
  })

  it('trims undefined to nothing and none to None', () => {
    expect(render("[{{ u | trim }}][{{ '  a \\n' | trim }}][{{ x | trim }}]", '{"x": null}')).toBe('[][a][None]')
  })

  it('iterates over a string by character, over undefined not at all, with a filter', () => {
    expect(
      render("{% for c in s %}<{{ c }}>{% endfor %}{% for c in u %}never{% endfor %}{% for c in s if c != 'b' %}{{ c }}{% endfor %}", '{"s": "abc"}')
    ).toBe('<a><b><c>ac')
    expect(render("{% for c in s %}{{ c['type'] is defined }}{% endfor %}", '{"s": "ab"}')).toBe('FalseFalse')
  })

  it('writes tojson as json.dumps: whole floats as 2.0, indent, sorted keys, separators, ensure_ascii', () => {
    const src = "{{ v | tojson }}|{{ v | tojson(indent=2) }}|{{ v | tojson(sort_keys=true, separators=(',', ':')) }}|{{ 'é' | tojson(ensure_ascii=true) }}"
    expect(render(src, '{"v": {"b": 2.0, "a": [1, 1e16, 1e-5, 0.5], "é": null}}')).toBe(
      '{"b": 2.0, "a": [1, 1e+16, 1e-05, 0.5], "é": null}|{\n  "b": 2.0,\n  "a": [\n    1,\n    1e+16,\n    1e-05,\n    0.5\n  ],\n  "é": null\n}|{"a":[1,1e+16,1e-05,0.5],"b":2.0,"é":null}|"\\u00e9"'
    )
  })

  it('prints floats as repr() does', () => {
    expect(render('{{ a }} {{ b }} {{ c }} {{ d }} {{ e }}', '{"a": 2.0, "b": 1e16, "c": 1e-5, "d": 0.30000000000000004, "e": -0.0}')).toBe(
      '2.0 1e+16 1e-05 0.30000000000000004 -0.0'
    )
    const reprs: ReadonlyArray<readonly [number, string]> = [
      [0.0001, '0.0001'],
      [123456789, '123456789.0'],
      [1.5e300, '1.5e+300'],
      [1e22, '1e+22'],
      [12345678901234567, '1.2345678901234568e+16'],
      [5e-324, '5e-324']
    ]
    for (const [x, text] of reprs) expect(Py.floatRepr(x)).toBe(text)
  })

  it('counts mappings and undefined as iterable and as sequences, none as neither; undefined has length 0', () => {
    expect(
      render('{{ d is iterable }}{{ u is iterable }}{{ n is iterable }}{{ s is sequence }}{{ d is sequence }}', '{"d": {"a": 1}, "n": null, "s": "x"}')
    ).toBe('TrueTrueFalseTrueTrue')
    expect(render('{{ u | length }}')).toBe('0')
  })

  it('refuses a string plus a non-string as Python does, and keeps raise_exception and strftime_now', () => {
    expect(() => render("{{ 'a' + x }}", '{"x": null}')).toThrow(/can only concatenate str \(not "NoneType"\) to str/)
    expect(() => render("{{ raise_exception('no system role') }}")).toThrow('no system role')
    expect(_.render({}, () => new Date(2024, 6, 26))(_.compile('{{ strftime_now("%d %b %Y") }} {{ strftime_now("%A %B %-d") }}'))).toBe(
      '26 Jul 2024 Friday July %-d'
    )
  })
})
