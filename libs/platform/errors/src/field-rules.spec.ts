import { blankOrTooLong, notOneOf } from './field-rules';

describe(notOneOf.name, () => {
  it('names the field and the allowed values, and passes an absent or allowed value', () => {
    expect(notOneOf('/creativeStyle/1', 'Vid', ['Video', 'Social'])).toEqual([
      { pointer: '/creativeStyle/1', code: 'NOT_ALLOWED', detail: 'creativeStyle.1 must be one of Video, Social; got "Vid".' },
    ]);
    expect(notOneOf('/type', 'Video', ['Video'])).toEqual([]);
    expect(notOneOf('/type', undefined, ['Video'])).toEqual([]);
  });
});

describe(blankOrTooLong.name, () => {
  it('refuses a blank or an over-long name, trimmed', () => {
    expect(blankOrTooLong('/name', '   ', 5)).toEqual([{ pointer: '/name', code: 'REQUIRED', detail: 'name must not be blank.' }]);
    expect(blankOrTooLong('/name', 'abcdef', 5)).toEqual([{ pointer: '/name', code: 'TOO_LONG', detail: 'name must be at most 5 characters.' }]);
    expect(blankOrTooLong('/name', ' abcde ', 5)).toEqual([]);
  });
});
